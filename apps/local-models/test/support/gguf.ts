import { writeFileSync } from 'node:fs';

/**
 * A writer of tiny GGUF v3 files: a llama-architecture model with random f32 weights and a
 * SentencePiece-style vocabulary, enough for llama.cpp to load, tokenise and generate. The tests
 * build their model with it, since no model file can be downloaded here.
 */

const GGUF_MAGIC = 0x46554747; // "GGUF" little-endian
const ALIGNMENT = 32;

enum ValueType {
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
}

type MetaValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'string[]'; value: string[] }
  | { type: 'f32[]'; value: number[] }
  | { type: 'i32[]'; value: number[] };

class ByteWriter {
  private chunks: Buffer[] = [];
  length = 0;

  private push(buffer: Buffer) {
    this.chunks.push(buffer);
    this.length += buffer.length;
  }
  u32(value: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value);
    this.push(b);
  }
  i32(value: number) {
    const b = Buffer.alloc(4);
    b.writeInt32LE(value);
    this.push(b);
  }
  u64(value: number) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(value));
    this.push(b);
  }
  f32(value: number) {
    const b = Buffer.alloc(4);
    b.writeFloatLE(value);
    this.push(b);
  }
  bool(value: boolean) {
    this.push(Buffer.from([value ? 1 : 0]));
  }
  string(value: string) {
    const bytes = Buffer.from(value, 'utf8');
    this.u64(bytes.length);
    this.push(bytes);
  }
  bytes(buffer: Buffer) {
    this.push(buffer);
  }
  pad(alignment: number) {
    const rest = this.length % alignment;
    if (rest !== 0) this.push(Buffer.alloc(alignment - rest));
  }
  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

function writeValue(w: ByteWriter, meta: MetaValue) {
  switch (meta.type) {
    case 'u32':
      w.u32(ValueType.UINT32);
      return w.u32(meta.value);
    case 'i32':
      w.u32(ValueType.INT32);
      return w.i32(meta.value);
    case 'f32':
      w.u32(ValueType.FLOAT32);
      return w.f32(meta.value);
    case 'bool':
      w.u32(ValueType.BOOL);
      return w.bool(meta.value);
    case 'string':
      w.u32(ValueType.STRING);
      return w.string(meta.value);
    case 'string[]':
      w.u32(ValueType.ARRAY);
      w.u32(ValueType.STRING);
      w.u64(meta.value.length);
      return meta.value.forEach((s) => w.string(s));
    case 'f32[]':
      w.u32(ValueType.ARRAY);
      w.u32(ValueType.FLOAT32);
      w.u64(meta.value.length);
      return meta.value.forEach((v) => w.f32(v));
    case 'i32[]':
      w.u32(ValueType.ARRAY);
      w.u32(ValueType.INT32);
      w.u64(meta.value.length);
      return meta.value.forEach((v) => w.i32(v));
  }
}

interface Tensor {
  name: string;
  /** ggml order: the innermost (contiguous) dimension first. */
  dims: number[];
  data: Float32Array;
}

/** Writes a GGUF v3 file: header, metadata, tensor infos, then 32-byte aligned f32 tensor data. */
export function encodeGguf(metadata: Record<string, MetaValue>, tensors: Tensor[]): Buffer {
  const w = new ByteWriter();
  w.u32(GGUF_MAGIC);
  w.u32(3);
  w.u64(tensors.length);
  w.u64(Object.keys(metadata).length);
  for (const [key, value] of Object.entries(metadata)) {
    w.string(key);
    writeValue(w, value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const tensor of tensors) {
    offsets.push(offset);
    offset += tensor.data.byteLength;
    offset = Math.ceil(offset / ALIGNMENT) * ALIGNMENT;
  }
  tensors.forEach((tensor, index) => {
    w.string(tensor.name);
    w.u32(tensor.dims.length);
    for (const dim of tensor.dims) w.u64(dim);
    w.u32(0); // GGML_TYPE_F32
    w.u64(offsets[index]);
  });
  w.pad(ALIGNMENT);
  for (const tensor of tensors) {
    w.bytes(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    w.pad(ALIGNMENT);
  }
  return w.toBuffer();
}

/** mulberry32: the same weights on every run. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface TinyLlamaOptions {
  name?: string;
  seed?: number;
  embedding?: number;
  layers?: number;
  heads?: number;
  feedForward?: number;
  contextLength?: number;
}

const WORDS = ['the', 'a', 'model', 'agent', 'local', 'token', 'hello', 'world', 'is', 'and', 'of', 'to', 'in', 'it', 'run', 'fast'];

/** The vocabulary: unknown, BOS, EOS, 256 byte-fallback tokens, single characters, then words. */
function vocabulary() {
  const tokens: string[] = ['<unk>', '<s>', '</s>'];
  const types: number[] = [2, 3, 3]; // UNKNOWN, CONTROL, CONTROL
  const scores: number[] = [0, 0, 0];
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(6); // BYTE
    scores.push(0);
  }
  const pieces = new Set<string>(['▁']);
  for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,!?'-:") pieces.add(c);
  for (const word of WORDS) {
    for (let end = 2; end <= word.length; end++) pieces.add(word.slice(0, end));
    pieces.add(`▁${word}`);
    for (let end = 2; end < word.length; end++) pieces.add(`▁${word.slice(0, end)}`);
  }
  for (const piece of pieces) {
    tokens.push(piece);
    types.push(1); // NORMAL
    scores.push(-tokens.length); // SentencePiece merge priority: earlier pieces first, longer ones win
  }
  // Longer pieces must outrank their parts for merges to happen; give them scores by length.
  for (let i = 259; i < tokens.length; i++) scores[i] = tokens[i].length * 10 - i / 1000;
  return { tokens, types, scores, normalStart: 259 };
}

/** A llama model of a few random layers, written to `file`; returns its vocabulary size. */
export function writeTinyLlama(file: string, options: TinyLlamaOptions = {}): { vocabularySize: number; bytes: number } {
  const nEmbd = options.embedding ?? 64;
  const nLayer = options.layers ?? 2;
  const nHead = options.heads ?? 4;
  const nFf = options.feedForward ?? 128;
  const nCtx = options.contextLength ?? 512;
  const rand = random(options.seed ?? 42);
  const { tokens, types, scores, normalStart } = vocabulary();
  const nVocab = tokens.length;

  const randomTensor = (name: string, dims: number[], scale: number): Tensor => {
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    for (let i = 0; i < data.length; i++) data[i] = (rand() * 2 - 1) * scale;
    return { name, dims, data };
  };
  const ones = (name: string, size: number): Tensor => ({ name, dims: [size], data: new Float32Array(size).fill(1) });

  const tensors: Tensor[] = [randomTensor('token_embd.weight', [nEmbd, nVocab], 1)];
  const projection = 1 / Math.sqrt(nEmbd);
  for (let layer = 0; layer < nLayer; layer++) {
    const p = `blk.${layer}`;
    tensors.push(
      ones(`${p}.attn_norm.weight`, nEmbd),
      randomTensor(`${p}.attn_q.weight`, [nEmbd, nEmbd], projection),
      randomTensor(`${p}.attn_k.weight`, [nEmbd, nEmbd], projection),
      randomTensor(`${p}.attn_v.weight`, [nEmbd, nEmbd], projection),
      randomTensor(`${p}.attn_output.weight`, [nEmbd, nEmbd], projection),
      ones(`${p}.ffn_norm.weight`, nEmbd),
      randomTensor(`${p}.ffn_gate.weight`, [nEmbd, nFf], projection),
      randomTensor(`${p}.ffn_up.weight`, [nEmbd, nFf], projection),
      randomTensor(`${p}.ffn_down.weight`, [nFf, nEmbd], 1 / Math.sqrt(nFf)),
    );
  }
  const output = randomTensor('output.weight', [nEmbd, nVocab], projection * 4);
  // Control and byte tokens get zero logits, so greedy decoding emits readable words and never stops early.
  output.data.fill(0, 0, normalStart * nEmbd);
  tensors.push(ones('output_norm.weight', nEmbd), output);

  const metadata: Record<string, MetaValue> = {
    'general.architecture': { type: 'string', value: 'llama' },
    'general.name': { type: 'string', value: options.name ?? 'tiny-llama' },
    'general.alignment': { type: 'u32', value: ALIGNMENT },
    'general.file_type': { type: 'u32', value: 0 }, // ALL_F32
    'llama.context_length': { type: 'u32', value: nCtx },
    'llama.embedding_length': { type: 'u32', value: nEmbd },
    'llama.block_count': { type: 'u32', value: nLayer },
    'llama.feed_forward_length': { type: 'u32', value: nFf },
    'llama.attention.head_count': { type: 'u32', value: nHead },
    'llama.attention.head_count_kv': { type: 'u32', value: nHead },
    'llama.attention.layer_norm_rms_epsilon': { type: 'f32', value: 1e-5 },
    'llama.rope.dimension_count': { type: 'u32', value: nEmbd / nHead },
    'llama.rope.freq_base': { type: 'f32', value: 10000 },
    'llama.vocab_size': { type: 'u32', value: nVocab },
    'tokenizer.ggml.model': { type: 'string', value: 'llama' },
    'tokenizer.ggml.tokens': { type: 'string[]', value: tokens },
    'tokenizer.ggml.scores': { type: 'f32[]', value: scores },
    'tokenizer.ggml.token_type': { type: 'i32[]', value: types },
    'tokenizer.ggml.unknown_token_id': { type: 'u32', value: 0 },
    'tokenizer.ggml.bos_token_id': { type: 'u32', value: 1 },
    'tokenizer.ggml.eos_token_id': { type: 'u32', value: 2 },
    'tokenizer.ggml.add_bos_token': { type: 'bool', value: true },
    'tokenizer.ggml.add_eos_token': { type: 'bool', value: false },
  };
  const buffer = encodeGguf(metadata, tensors);
  writeFileSync(file, buffer);
  return { vocabularySize: nVocab, bytes: buffer.length };
}
