import { describe, expect, it } from "vitest";
import { cookieOf, CookieJar, parseCookies } from "./cookies.js";

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

  it("applies a Set-Cookie line again after another line (or a list) changed the same cookie", () => {
    const jar = new CookieJar();
    const first = "s=1; Path=/; HttpOnly";
    jar.update(first);
    jar.update(first);
    expect(jar.header()).toBe("s=1");
    jar.update("s=2; Path=/");
    jar.update(first);
    expect(jar.header()).toBe("s=1");
    jar.update(["s=3; Path=/"]);
    expect(jar.header()).toBe("s=3");
    jar.update(first);
    expect(jar.header()).toBe("s=1");
  });

  it("follows two servers' cookies whose replies alternate, and a change of either", () => {
    const jar = new CookieJar();
    const env = "gymkit___env=e1; Path=/; HttpOnly; SameSite=Lax";
    const model = "gymkit___model=m1; Path=/; HttpOnly; SameSite=Lax";
    for (const line of [env, model, env, model, env]) jar.update(line);
    expect(jar.header()).toBe("gymkit___env=e1; gymkit___model=m1");
    jar.update("gymkit___model=m2; Path=/");
    jar.update(env);
    expect(jar.header()).toBe("gymkit___env=e1; gymkit___model=m2");
    jar.update(model);
    jar.update(env);
    expect(jar.header()).toBe("gymkit___env=e1; gymkit___model=m1");
    jar.update("gymkit___env=a%20b; Path=/");
    expect(jar.toJSON()).toEqual({ gymkit___env: "a b", gymkit___model: "m1" });
  });
});

describe("cookieOf", () => {
  it("gives what parseCookies gives for that name", () => {
    const headers = [
      undefined,
      "",
      "a",
      "a=1",
      "a=1; b=2",
      "b=2;a=1",
      "a=1; a=2",
      " a = 1 ; b=2",
      'a="q%20x"; b=%E0%A4%A',
      "a=%E0%A4%A; c=%20",
      "x; a=1",
      "=1; a=",
      "gymkit___env=4f1c2b7e-0000-4000-8000-000000000000; gymkit___policy_model=11111111-2222-4333-8444-555555555555",
    ];
    for (const header of headers) {
      for (const name of ["a", "b", "c", "gymkit___env", "gymkit___policy_model", "missing"]) {
        expect(cookieOf(header, name), `${String(header)} / ${name}`).toBe(parseCookies(header)[name]);
      }
    }
  });
});
