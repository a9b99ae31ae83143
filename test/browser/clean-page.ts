/** The page behind test/media/metadata.test.ts: a picture uploaded to a service on IndexedDB, as a replica or the editor stores one. */
import { idbDriver } from '../../drivers/idb/index.js';
import { createBlogService } from '../../src/index.js';

(globalThis as Record<string, unknown>).cleanPage = {
  /** The id and size the browser's service gives these bytes (base64). */
  async upload(base64: string): Promise<{ id: string; bytes: number }> {
    const body = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const service = createBlogService({ driver: idbDriver({ name: `clean-${Math.random().toString(36).slice(2)}` }) });
    await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
    const blog = await service.blogs.insert({
      body: { name: 'Pictures', url: 'https://pictures.example/' },
      ownerId: 'ada',
    });
    const m = await service.media.upload({ blogId: blog.id, body: new Blob([body]) });
    await service.close();
    return { id: m.id, bytes: m.bytes };
  },
};
