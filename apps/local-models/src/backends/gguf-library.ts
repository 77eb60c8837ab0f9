import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@platform/telemetry';
import { normalizeModelName, type ModelSummary } from './backend';
import { loadLlamaCpp } from './llama-cpp';

/** A GGUF file of the models directory, described as `/api/tags` lists models. */
export interface GgufModel {
  name: string;
  file: string;
  /** Changes when the file does (size and modification time): loaded copies are reloaded. */
  version: string;
  summary: ModelSummary;
  /** The header's metadata, flattened to `a.b.c` keys (lists left out), as Ollama's `model_info`. */
  info: Record<string, string | number | boolean>;
  /** The chat template of the file (`tokenizer.chat_template`), when it has one. */
  template?: string;
}

/** `{general: {architecture: 'llama'}}` → `{'general.architecture': 'llama'}`; lists are left out. */
function flatten(value: unknown, prefix = '', into: Record<string, string | number | boolean> = {}) {
  if (value === null || value === undefined || Array.isArray(value) || ArrayBuffer.isView(value)) return into;
  if (typeof value === 'object') {
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) flatten(inner, prefix ? `${prefix}.${key}` : key, into);
  } else if (typeof value === 'bigint') {
    into[prefix] = Number(value);
  } else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    into[prefix] = value;
  }
  return into;
}

const FILE_TYPES: Record<number, string> = {
  0: 'F32',
  1: 'F16',
  2: 'Q4_0',
  3: 'Q4_1',
  7: 'Q8_0',
  8: 'Q5_0',
  9: 'Q5_1',
  10: 'Q2_K',
  11: 'Q3_K_S',
  12: 'Q3_K_M',
  13: 'Q3_K_L',
  14: 'Q4_K_S',
  15: 'Q4_K_M',
  16: 'Q5_K_S',
  17: 'Q5_K_M',
  18: 'Q6_K',
  32: 'BF16',
};

function parameterSize(count: number): string {
  if (count >= 1e9) return `${(count / 1e9).toFixed(1)}B`;
  if (count >= 1e6) return `${(count / 1e6).toFixed(1)}M`;
  if (count >= 1e3) return `${(count / 1e3).toFixed(1)}K`;
  return String(count);
}

function sha256(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/**
 * The `*.gguf` files of `LOCAL_MODELS_DIR`. A file `phi-3.gguf` is the model `phi-3:latest`, and
 * `phi-3@q4.gguf` is `phi-3:q4` (a colon is no good in file names). Headers and digests are read
 * once per file version; a listing within `ttlMs` of the last one reuses it.
 */
export class GgufLibrary {
  private described = new Map<string, Promise<GgufModel | undefined>>();
  private listing?: { at: number; models: Promise<GgufModel[]> };

  constructor(
    readonly directory: string,
    private readonly logger: Logger,
    private readonly ttlMs = 2000,
  ) {}

  list(): Promise<GgufModel[]> {
    if (this.listing && Date.now() - this.listing.at < this.ttlMs) return this.listing.models;
    const models = this.scan();
    this.listing = { at: Date.now(), models };
    models.catch(() => (this.listing = undefined));
    return models;
  }

  async find(name: string): Promise<GgufModel | undefined> {
    const wanted = normalizeModelName(name);
    return (await this.list()).find((model) => model.name === wanted);
  }

  private async scan(): Promise<GgufModel[]> {
    let entries: string[];
    try {
      entries = await readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const files = entries.filter((entry) => entry.toLowerCase().endsWith('.gguf')).sort();
    const models = await Promise.all(files.map((entry) => this.describe(path.join(this.directory, entry))));
    return models.filter((model): model is GgufModel => model !== undefined);
  }

  private async describe(file: string): Promise<GgufModel | undefined> {
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const version = `${file}:${info.size}:${info.mtimeMs}`;
    let described = this.described.get(version);
    if (!described) {
      described = this.read(file, version, info.size, info.mtime).catch((error: unknown) => {
        this.logger.warn({ err: error, file }, 'not a usable GGUF model file; skipped');
        return undefined;
      });
      this.described.set(version, described);
    }
    return described;
  }

  private async read(file: string, version: string, size: number, modified: Date): Promise<GgufModel> {
    const { readGgufFileInfo } = await loadLlamaCpp();
    const info = await readGgufFileInfo(file, {
      logWarnings: false,
      ignoreKeys: ['tokenizer.ggml.tokens', 'tokenizer.ggml.scores', 'tokenizer.ggml.token_type', 'tokenizer.ggml.merges'],
    });
    const general = info.metadata.general as { architecture?: string; file_type?: number; size_label?: string };
    const parameters = (info.fullTensorInfo ?? info.tensorInfo ?? []).reduce(
      (sum, tensor) => sum + tensor.dimensions.reduce<number>((product, dim) => product * Number(dim), 1),
      0,
    );
    const base = path.basename(file).replace(/\.gguf$/i, '');
    const [stem, tag] = base.includes('@') ? [base.slice(0, base.lastIndexOf('@')), base.slice(base.lastIndexOf('@') + 1)] : [base, 'latest'];
    const name = `${stem.toLowerCase()}:${tag.toLowerCase()}`;
    const family = general.architecture ?? 'unknown';
    const info_ = flatten(info.metadata);
    const template = typeof info_['tokenizer.chat_template'] === 'string' ? (info_['tokenizer.chat_template'] as string) : undefined;
    delete info_['tokenizer.chat_template'];
    return {
      name,
      file,
      version,
      info: info_,
      template,
      summary: {
        name,
        model: name,
        modified_at: modified.toISOString(),
        size,
        digest: await sha256(file),
        details: {
          parent_model: '',
          format: 'gguf',
          family,
          families: [family],
          parameter_size: general.size_label ?? parameterSize(parameters),
          quantization_level: FILE_TYPES[general.file_type ?? -1] ?? 'unknown',
        },
        backend: 'embedded',
      },
    };
  }
}
