import { describe, expect, it } from "vitest";
import { CookieJar } from "./cookies.js";

describe("CookieJar", () => {
  it("renders the Cookie header again only when a value changes", () => {
    const jar = new CookieJar({ a: "1" });
    expect(jar.header()).toBe("a=1");
    jar.update("session=x y; Path=/; HttpOnly");
    expect(jar.header()).toBe("a=1; session=x%20y");
    jar.update(["session=x y; Path=/", "a=1"]);
    expect(jar.header()).toBe("a=1; session=x%20y");
    jar.update('session="z"; Path=/');
    expect(jar.header()).toBe("a=1; session=z");
    expect(new CookieJar().header()).toBeUndefined();
  });
});
