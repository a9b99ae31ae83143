/** The blob-store suite on blogcore/blobs: fsBlobs on a fresh directory, s3Blobs on an S3-protocol server started here. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsBlobs, s3Blobs } from '../../src/media/blobs/index.js';
import { startS3, type S3Test } from './s3-server.js';
import { bytesOf, pattern, runBlobSuite } from './suite.js';

const root = mkdtempSync(join(tmpdir(), 'blogcore-fs-blobs-'));
let n = 0;
let s3: S3Test;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3?.close();
  rmSync(root, { recursive: true, force: true });
});

runBlobSuite('fsBlobs', async () => ({ blobs: fsBlobs({ dir: join(root, `suite-${n++}`) }), close: async () => {} }));
runBlobSuite('s3Blobs', async () => ({
  blobs: s3Blobs({ client: s3.client, bucket: await s3.bucket(), prefix: 'media/' }),
  close: async () => {},
}));

describe('fsBlobs on disk', () => {
  it('writes under <dir>/<key> through .staging, and sweeps what an interrupted put left there', async () => {
    const dir = join(root, 'layout');
    const blobs = fsBlobs({ dir });
    await blobs.put(
      'blog1/up1',
      (async function* () {
        yield pattern(10);
      })(),
    );
    expect(readdirSync(join(dir, 'blog1'))).toEqual(['up1']);
    expect(readdirSync(join(dir, '.staging'))).toEqual([]);
    // A put whose process died leaves its staged file (simulated: a put paused for ever, then abandoned).
    let sent!: () => void;
    const started = new Promise<void>((r) => (sent = r));
    void blobs.put(
      'blog1/up2',
      (async function* () {
        yield pattern(10);
        sent();
        await new Promise(() => {});
      })(),
    );
    await started;
    expect(readdirSync(join(dir, '.staging'))).toHaveLength(1);
    expect(await blobs.sweep(Date.now() - 60_000, 10)).toBe(0);
    expect(await blobs.sweep(Date.now() + 1, 10)).toBe(1);
    expect(readdirSync(join(dir, '.staging'))).toEqual([]);
    expect(await bytesOf(await blobs.read('blog1/up1'))).toEqual(pattern(10));
  });

  it('refuses keys that would leave its directory', async () => {
    const blobs = fsBlobs({ dir: join(root, 'keys') });
    for (const key of ['../x', 'a/../../x', '/etc/passwd', '.staging/x', 'a//b', 'a\\b']) {
      await expect(blobs.read(key)).rejects.toThrow('not a blob key');
    }
  });
});
