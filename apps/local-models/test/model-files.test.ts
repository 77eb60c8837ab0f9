import { startService } from '@platform/service-kit';
import { testRedisUrl } from '@platform/testing';
import { copyFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { localModelsService } from '../src/service';
import { startHarness, type Harness, errorOf } from './support/harness';
import { writeTinyLlama } from './support/gguf';

describe('the models directory', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ollama: false, env: { LOCAL_MODELS_MAX_LOADED: '1' } });
  });
  afterAll(() => h.stop());

  const names = async () => (await request(h.url).get('/api/tags').set('Authorization', h.reader)).body.models.map((model: { name: string }) => model.name);

  it('picks up new files (name@tag.gguf is name:tag) and skips files that are not GGUF', async () => {
    writeTinyLlama(path.join(h.modelsDir, 'Other@v2.gguf'), { seed: 9, name: 'other' });
    writeFileSync(path.join(h.modelsDir, 'broken.gguf'), 'not a model at all');
    writeFileSync(path.join(h.modelsDir, 'notes.txt'), 'ignored');
    await new Promise((resolve) => setTimeout(resolve, 2100)); // the listing is reused for 2 s
    expect(await names()).toEqual(['other:v2', 'tiny:latest']);
  });

  it('keeps at most LOCAL_MODELS_MAX_LOADED models in memory, reloading on demand', async () => {
    const ask = (model: string) =>
      request(h.url)
        .post('/api/generate')
        .set('Authorization', h.user)
        .send({ model, prompt: 'hello', stream: false, options: { num_predict: 3, temperature: 0 } });
    const first = await ask('tiny');
    expect(first.status).toBe(200);
    const other = await ask('other:v2');
    expect(other.status).toBe(200);
    expect(other.body.load_duration).toBeGreaterThan(0);
    const again = await ask('tiny');
    expect(again.body.load_duration).toBeGreaterThan(0); // tiny was unloaded to make room
    expect(again.body.response).toBe(first.body.response);
    const health = await request(h.url).get('/health');
    expect(health.body.backends.embedded).toMatchObject({ models: 2, loaded: 1 });
  });

  it('loads a model once for concurrent first requests', async () => {
    writeTinyLlama(path.join(h.modelsDir, 'third.gguf'), { seed: 3 });
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        request(h.url)
          .post('/api/generate')
          .set('Authorization', h.user)
          .send({ model: 'third', prompt: 'hello', stream: false, options: { num_predict: 2, temperature: 0 } }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    const running = await request(h.url).get('/api/ps').set('Authorization', h.reader);
    expect(running.body.models.map((model: { name: string }) => model.name)).toEqual(['third:latest']);
  });

  it('answers 503 for a file whose header reads but whose weights do not load', async () => {
    const good = path.join(h.modelsDir, 'tiny.gguf');
    const cut = path.join(h.modelsDir, 'cut.gguf');
    copyFileSync(good, cut);
    truncateSync(cut, Math.floor(statSync(cut).size / 2));
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const res = await request(h.url).post('/api/generate').set('Authorization', h.user).send({ model: 'cut', prompt: 'hello', stream: false });
    expect(res.status).toBe(503);
    expect(errorOf(res.body)).toMatchObject({ code: 'service_unavailable', details: { model: 'cut:latest' } });
    rmSync(cut);
  });
});

describe('configuration', () => {
  it('refuses to start with prices that are not JSON, naming the variable', async () => {
    await expect(
      startService(localModelsService, { env: { PORT: '0', LOG_LEVEL: 'silent', REDIS_URL: testRedisUrl, LOCAL_MODELS_PRICES: '{llama: 1' } }),
    ).rejects.toThrow(/LOCAL_MODELS_PRICES/);
    await expect(
      startService(localModelsService, { env: { PORT: '0', LOG_LEVEL: 'silent', REDIS_URL: testRedisUrl, LOCAL_MODELS_PRICES: '{"llama": -1}' } }),
    ).rejects.toThrow(/LOCAL_MODELS_PRICES/);
    await expect(
      startService(localModelsService, { env: { PORT: '0', LOG_LEVEL: 'silent', REDIS_URL: testRedisUrl, OLLAMA_URL: 'not a url' } }),
    ).rejects.toThrow(/OLLAMA_URL/);
  });
});
