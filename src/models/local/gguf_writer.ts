// A minimal GGUF (v3) writer: typed metadata and F32 tensors, streamed to a file. Enough to build
// a tiny random-weight model around a real tokenizer (tiny_model.ts), so the local engine's whole
// path — llama.cpp's tokenizer, chat template, sampling, grammar — runs in tests with no download.
// Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
import { closeSync, openSync, writeSync } from "node:fs";

const ALIGNMENT = 32;

enum ValueType {
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
}

const GGML_TYPE_F32 = 0;

export type MetadataValue =
  | { type: "u32"; value: number }
  | { type: "i32"; value: number }
  | { type: "f32"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "string[]"; value: readonly string[] }
  | { type: "i32[]"; value: ArrayLike<number> };

export interface TensorSpec {
  name: string;
  /** GGUF order: the fastest-varying dimension first (a PyTorch [out, in] weight is [in, out]). */
  dims: readonly number[];
  /** Fills the tensor's values (F32), row-major in GGUF order. */
  fill: (out: Float32Array) => void;
}

/** Appends little-endian primitives to growing chunks; flushes to the file descriptor. */
class Sink {
  private chunks: Buffer[] = [];
  private pending = 0;
  written = 0;

  constructor(private readonly fd: number) {}

  bytes(buffer: Buffer): void {
    this.chunks.push(buffer);
    this.pending += buffer.length;
    this.written += buffer.length;
    if (this.pending > 1 << 22) this.flush();
  }

  u32(value: number): void {
    const b = Buffer.allocUnsafe(4);
    b.writeUInt32LE(value);
    this.bytes(b);
  }

  i32(value: number): void {
    const b = Buffer.allocUnsafe(4);
    b.writeInt32LE(value);
    this.bytes(b);
  }

  u64(value: number): void {
    const b = Buffer.allocUnsafe(8);
    b.writeBigUInt64LE(BigInt(value));
    this.bytes(b);
  }

  f32(value: number): void {
    const b = Buffer.allocUnsafe(4);
    b.writeFloatLE(value);
    this.bytes(b);
  }

  string(value: string): void {
    const b = Buffer.from(value, "utf8");
    this.u64(b.length);
    this.bytes(b);
  }

  pad(): void {
    const rest = this.written % ALIGNMENT;
    if (rest) this.bytes(Buffer.alloc(ALIGNMENT - rest));
  }

  flush(): void {
    if (this.chunks.length === 0) return;
    writeSync(this.fd, Buffer.concat(this.chunks));
    this.chunks = [];
    this.pending = 0;
  }
}

function writeValue(sink: Sink, entry: MetadataValue): void {
  switch (entry.type) {
    case "u32":
      sink.u32(ValueType.UINT32);
      sink.u32(entry.value);
      return;
    case "i32":
      sink.u32(ValueType.INT32);
      sink.i32(entry.value);
      return;
    case "f32":
      sink.u32(ValueType.FLOAT32);
      sink.f32(entry.value);
      return;
    case "bool":
      sink.u32(ValueType.BOOL);
      sink.bytes(Buffer.from([entry.value ? 1 : 0]));
      return;
    case "string":
      sink.u32(ValueType.STRING);
      sink.string(entry.value);
      return;
    case "string[]":
      sink.u32(ValueType.ARRAY);
      sink.u32(ValueType.STRING);
      sink.u64(entry.value.length);
      for (const s of entry.value) sink.string(s);
      return;
    case "i32[]": {
      sink.u32(ValueType.ARRAY);
      sink.u32(ValueType.INT32);
      sink.u64(entry.value.length);
      const b = Buffer.allocUnsafe(entry.value.length * 4);
      for (let i = 0; i < entry.value.length; i++) b.writeInt32LE(entry.value[i]!, i * 4);
      sink.bytes(b);
      return;
    }
  }
}

const elements = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

/** Writes a GGUF file with the given metadata (in order) and F32 tensors. */
export function writeGguf(path: string, metadata: ReadonlyArray<[string, MetadataValue]>, tensors: readonly TensorSpec[]): void {
  const fd = openSync(path, "w");
  try {
    const sink = new Sink(fd);
    sink.bytes(Buffer.from("GGUF", "ascii"));
    sink.u32(3);
    sink.u64(tensors.length);
    sink.u64(metadata.length);
    for (const [key, value] of metadata) {
      sink.string(key);
      writeValue(sink, value);
    }
    let offset = 0;
    for (const tensor of tensors) {
      sink.string(tensor.name);
      sink.u32(tensor.dims.length);
      for (const d of tensor.dims) sink.u64(d);
      sink.u32(GGML_TYPE_F32);
      sink.u64(offset);
      offset += Math.ceil((elements(tensor.dims) * 4) / ALIGNMENT) * ALIGNMENT;
    }
    sink.pad();
    for (const tensor of tensors) {
      const values = new Float32Array(elements(tensor.dims));
      tensor.fill(values);
      sink.bytes(Buffer.from(values.buffer, values.byteOffset, values.byteLength));
      sink.pad();
    }
    sink.flush();
  } finally {
    closeSync(fd);
  }
}
