import { payloadTooLarge, badRequest, ApiError } from '@platform/http';
import type { Request } from 'express';
import { createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';

/**
 * Reads a request body, inflating `Content-Encoding: gzip` (or `deflate`) on the way, and refuses
 * it with 413 as soon as the inflated size passes `maxBytes`: a gzip bomb is stopped after
 * `maxBytes` of output, never inflated whole.
 */
export function readBody(req: Request, maxBytes: number): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  let source: Readable = req;
  if (encoding === 'gzip' || encoding === 'x-gzip') source = req.pipe(createGunzip());
  else if (encoding === 'deflate') source = req.pipe(createInflate());
  else if (encoding !== 'identity' && encoding !== '')
    return Promise.reject(
      new ApiError(415, 'validation_error', 'unsupported_encoding', `Content-Encoding ${encoding} is not supported (gzip, deflate or none)`),
    );
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(payloadTooLarge(`The body is larger than ${maxBytes} bytes`));

  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      if (source !== req) source.destroy();
      // Stop reading; the rest of the upload is discarded once the answer is sent.
      req.unpipe();
      req.resume();
      reject(error);
    };
    source.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) return fail(payloadTooLarge(`The body is larger than ${maxBytes} bytes after decompression`));
      chunks.push(chunk);
    });
    source.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size));
    });
    source.on('error', (error: Error) => fail(source === req ? error : badRequest(`The body could not be decompressed: ${error.message}`)));
    req.on('aborted', () => fail(badRequest('The request was aborted')));
  });
}
