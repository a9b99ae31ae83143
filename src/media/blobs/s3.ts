/**
 * `s3Blobs({ client, bucket, prefix? })`: media bytes as objects of an S3 bucket (AWS S3 or an S3-compatible
 * store: MinIO, R2, Ceph…), through the host's `S3Client` of `@aws-sdk/client-s3` (an optional peer, loaded
 * on first use). Objects are `<prefix><blogId>/<upload id>`.
 *
 * A put sends what fits in one part (5 MiB) as one PutObject, anything larger as a multipart upload, which S3
 * makes visible only when it completes (a failed put aborts it): memory per put is one part, whatever the
 * size. Reads are ranged GETs, streamed. An S3-compatible store needs `forcePathStyle: true` on the client
 * and, with recent SDKs, `requestChecksumCalculation: 'WHEN_REQUIRED'` (docs/media.md).
 */
import { fixedChunks, type BlobRange, type BlobStore } from '../../store/driver.js';

/** What blogcore needs of an `S3Client`: its `send`. */
export interface S3ClientLike {
  send(command: object): Promise<unknown>;
}

export interface S3BlobsOptions {
  /** An `S3Client` of `@aws-sdk/client-s3`, configured with region, credentials (and for other stores, endpoint and path style). */
  client: S3ClientLike;
  /** The bucket that holds the objects (it must exist). */
  bucket: string;
  /** Put before every object name, e.g. `media/`. Default none. */
  prefix?: string;
}

/** S3's smallest part but the last: a put holds at most this much of a picture at once. */
const PART = 5 * 1024 * 1024;

type S3 = typeof import('@aws-sdk/client-s3');
let sdk: Promise<S3> | undefined;
const load = () =>
  (sdk ??= import('@aws-sdk/client-s3').catch((error: unknown) => {
    sdk = undefined;
    throw new Error(`s3Blobs needs @aws-sdk/client-s3: npm install @aws-sdk/client-s3 (${String(error)})`);
  }));

/** The bytes of `range` out of a whole object's stream. */
function slice({ offset, length }: BlobRange): TransformStream<Uint8Array, Uint8Array> {
  let at = 0;
  return new TransformStream({
    transform(chunk, controller) {
      const from = Math.max(0, offset - at);
      const to = Math.min(chunk.byteLength, offset + length - at);
      at += chunk.byteLength;
      if (to > from) controller.enqueue(chunk.subarray(from, to));
    },
  });
}

const status = (e: unknown) => (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
const isMissing = (e: unknown) => (e as { name?: string }).name === 'NoSuchKey' || status(e) === 404;

/**
 * A blob store for media bytes in an S3 bucket (or an S3-compatible store), through the host's `S3Client`: pass it
 * as `blobs` to `createBlogService`. Large pictures go up as multipart uploads, reads are ranged and streamed.
 *
 * @example
 * createBlogService({ driver, blobs: s3Blobs({ client: new S3Client({ region }), bucket: 'blog-media' }) });
 */
export function s3Blobs(options: S3BlobsOptions): BlobStore {
  const { client, bucket } = options ?? ({} as S3BlobsOptions);
  if (typeof client?.send !== 'function' || typeof bucket !== 'string' || bucket === '') {
    throw new TypeError('s3Blobs needs { client, bucket }: an S3Client of @aws-sdk/client-s3 and a bucket name');
  }
  const prefix = options.prefix ?? '';
  const Bucket = bucket;
  const send: Send = <T>(command: object) => client.send(command) as Promise<T>;

  return {
    async put(key, source) {
      const s3 = await load();
      const Key = prefix + key;
      const parts = fixedChunks(source, PART)[Symbol.asyncIterator]();
      let next = await parts.next();
      const first = next.done ? new Uint8Array(0) : next.value;
      if (!next.done) next = await parts.next();
      if (next.done) {
        await send(new s3.PutObjectCommand({ Bucket, Key, Body: first, ContentLength: first.byteLength }));
        return first.byteLength;
      }
      const { UploadId } = await send<{ UploadId?: string }>(new s3.CreateMultipartUploadCommand({ Bucket, Key }));
      const done: Array<{ PartNumber: number; ETag?: string }> = [];
      let size = 0;
      try {
        let part: Uint8Array | undefined = first;
        while (part) {
          const PartNumber = done.length + 1;
          const { ETag } = await send<{ ETag?: string }>(
            new s3.UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: part, ContentLength: part.byteLength }),
          );
          done.push({ PartNumber, ...(ETag ? { ETag } : {}) });
          size += part.byteLength;
          part = next.done ? undefined : next.value;
          if (!next.done) next = await parts.next();
        }
        await send(new s3.CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: done } }));
      } catch (error) {
        await send(new s3.AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => undefined);
        throw error;
      }
      return size;
    },

    async read(key: string, range?: BlobRange) {
      const s3 = await load();
      const Key = prefix + key;
      try {
        if (range?.length === 0) {
          await send(new s3.HeadObjectCommand({ Bucket, Key }));
          return new ReadableStream<Uint8Array>({ start: (c) => c.close() });
        }
        const out = await send<GetObjectOut>(
          new s3.GetObjectCommand({
            Bucket,
            Key,
            ...(range ? { Range: `bytes=${range.offset}-${range.offset + range.length - 1}` } : {}),
          }),
        );
        return bytesOf(out, range);
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    async delete(key) {
      const s3 = await load();
      await send(new s3.DeleteObjectCommand({ Bucket, Key: prefix + key }));
    },

    sweep: async (before, limit) => abortStale(await load(), send, Bucket, prefix, before, limit),
  };
}

type Send = <T>(command: object) => Promise<T>;
interface GetObjectOut {
  Body?: { transformToWebStream(): ReadableStream<Uint8Array> };
  ContentRange?: string;
}

/** A GetObject's bytes: exactly `range` when one was asked for. */
function bytesOf(out: GetObjectOut, range: BlobRange | undefined): ReadableStream<Uint8Array> {
  const body = out.Body ? out.Body.transformToWebStream() : new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  if (!range) return body;
  // HTTP lets a server answer a range request with more (the whole object, or a wider range, as some
  // S3-compatible stores do): take exactly the range asked for out of what came.
  const m = /^bytes (\d+)-(\d+)\//.exec(out.ContentRange ?? '');
  const start = m ? Number(m[1]) : 0;
  if (m && start === range.offset && Number(m[2]) === range.offset + range.length - 1) return body;
  return body.pipeThrough(slice({ offset: range.offset - start, length: range.length }));
}

/** Aborts up to `limit` multipart uploads under `prefix` begun before `before` (puts a crash cut off). */
async function abortStale(s3: S3, send: Send, Bucket: string, prefix: string, before: number, limit: number) {
  let listed: { Uploads?: Array<{ Key?: string; UploadId?: string; Initiated?: Date }> };
  try {
    listed = await send(
      new s3.ListMultipartUploadsCommand({
        Bucket,
        Prefix: prefix,
        MaxUploads: Math.max(1, Math.min(1000, limit)),
      }),
    );
  } catch (error) {
    // Some S3-compatible stores do not list uploads: a lifecycle rule (AbortIncompleteMultipartUpload) does it there.
    if (status(error) === 501 || (error as { name?: string }).name === 'NotImplemented') return 0;
    throw error;
  }
  let removed = 0;
  for (const u of listed.Uploads ?? []) {
    if (removed >= limit || !u.Key || !u.UploadId || !(u.Initiated && u.Initiated.getTime() < before)) continue;
    await send(new s3.AbortMultipartUploadCommand({ Bucket, Key: u.Key, UploadId: u.UploadId }));
    removed++;
  }
  return removed;
}
