// The error a reproduced Python check raises where the reference raises (the verdict is then "not followed").
export class ReferenceRaises extends Error {
  override name = "ReferenceRaises";
}
