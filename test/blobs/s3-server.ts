/** An S3-protocol server for tests (s3rver, in this process, on a free loopback port) and a client set up for it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export interface S3Test {
  client: S3Client;
  endpoint: string;
  /** A new empty bucket. */
  bucket(): Promise<string>;
  close(): Promise<void>;
}

export async function startS3(): Promise<S3Test> {
  const dir = mkdtempSync(join(tmpdir(), 'blogcore-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  // As docs/media.md sets up a client for an S3-compatible store: path-style, checksums only when required.
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  let n = 0;
  return {
    client,
    endpoint,
    async bucket() {
      const name = `media-${n++}`;
      await client.send(new CreateBucketCommand({ Bucket: name }));
      return name;
    },
    async close() {
      client.destroy();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
