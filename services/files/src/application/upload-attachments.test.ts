import { DomainError } from '@flowboard/service-kit';
import type { AttachmentRecord, AttachmentRepository, BlobStore, IncomingFile, NewAttachment } from './ports';
import { makeUploadAttachments } from './upload-attachments';

/** In-memory blob store and repository: the use case's all-or-nothing rules without I/O. */
function fakes() {
  const objects = new Map<string, { bytes: Buffer; contentType: string }>();
  const rows: AttachmentRecord[] = [];
  const warnings: string[] = [];
  let nextId = 1;
  let failInsert = false;
  let failRemove = false;
  const blobs: BlobStore = {
    async ensureBucket() {},
    async putStream(key, content, contentType) {
      const chunks: Buffer[] = [];
      for await (const chunk of content) chunks.push(Buffer.from(chunk));
      objects.set(key, { bytes: Buffer.concat(chunks), contentType });
    },
    async getStream() {
      throw new Error('not used');
    },
    async remove(key) {
      if (failRemove) throw new Error('store down');
      objects.delete(key);
    },
  };
  const attachments: AttachmentRepository = {
    async insertMany(list: readonly NewAttachment[]) {
      if (failInsert) throw new Error('database down');
      const created = list.map((a) => ({ ...a, id: nextId++, createdAt: new Date() }));
      rows.push(...created);
      return created;
    },
    async listByStory() {
      return rows;
    },
    async find() {
      return undefined;
    },
    async rename() {
      return undefined;
    },
    async delete() {
      return undefined;
    },
  };
  const logger = { warn: (_details: object, message: string) => void warnings.push(message) };
  let tokens = 0;
  const newToken = () => (++tokens).toString(16).padStart(32, '0');
  const upload = makeUploadAttachments({ blobs, attachments, logger, newToken });
  return {
    upload,
    objects,
    rows,
    warnings,
    failInsert: () => (failInsert = true),
    failRemove: () => (failRemove = true),
  };
}

async function* bytes(...chunks: string[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield Buffer.from(chunk);
}

async function* failing(error: Error, ...before: string[]): AsyncGenerator<Uint8Array> {
  yield* bytes(...before);
  throw error;
}

async function* files(...list: IncomingFile[]): AsyncGenerator<IncomingFile> {
  yield* list;
}

const file = (
  fileName: string | undefined,
  contentType: string | undefined,
  content: AsyncIterable<Uint8Array>,
): IncomingFile => ({
  fileName,
  contentType,
  content,
});

describe('UploadAttachments', () => {
  it('stores every file, counts its bytes, and records the rows together', async () => {
    const { upload, objects, rows } = fakes();
    const created = await upload({
      projectId: 12,
      storyId: 3,
      userId: 7,
      files: files(
        file('a.txt', 'text/plain', bytes('ab', 'c')),
        file('../../etc/passwd', undefined, bytes()),
        file('C:\\x\\y.BIN', 'Application/X-Thing', bytes('xyz')),
      ),
    });
    expect(created.map((a) => [a.id, a.fileName, a.sizeBytes, a.contentType])).toEqual([
      [1, 'a.txt', 3, 'text/plain'],
      [2, 'passwd', 0, 'application/octet-stream'],
      [3, 'y.BIN', 3, 'application/x-thing'],
    ]);
    expect(rows).toHaveLength(3);
    for (const a of created) {
      expect(a.objectKey).toBe(`12/3/${a.token}`);
      expect(a.token).toMatch(/^[0-9a-f]{32}$/);
      expect(a.createdBy).toBe(7);
    }
    expect([...objects.keys()]).toEqual(created.map((a) => a.objectKey));
    expect(objects.get(created[0]!.objectKey)!.bytes.toString()).toBe('abc');
  });

  it('refuses a request without files (invalid-body) and writes nothing', async () => {
    const { upload, objects, rows } = fakes();
    const error = await upload({ projectId: 1, storyId: 1, userId: 1, files: files() }).catch(
      (e: DomainError) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'InvalidArgument', problem: 'invalid-body' });
    expect(objects.size + rows.length).toBe(0);
  });

  it('removes the objects already written when a later file fails, and records nothing', async () => {
    const { upload, objects, rows } = fakes();
    const tooLarge = new DomainError('PayloadTooLarge', 'too large');
    const error = await upload({
      projectId: 1,
      storyId: 1,
      userId: 1,
      files: files(
        file('ok.txt', 'text/plain', bytes('fine')),
        file('big.bin', undefined, failing(tooLarge, 'xxxx')),
      ),
    }).catch((e: unknown) => e);
    expect(error).toBe(tooLarge);
    expect(objects.size).toBe(0);
    expect(rows).toHaveLength(0);
  });

  it('removes the objects when the rows cannot be recorded', async () => {
    const { upload, objects, rows, failInsert } = fakes();
    failInsert();
    await expect(
      upload({
        projectId: 1,
        storyId: 1,
        userId: 1,
        files: files(file('a', 'text/plain', bytes('a')), file('b', 'text/plain', bytes('b'))),
      }),
    ).rejects.toThrow('database down');
    expect(objects.size + rows.length).toBe(0);
  });

  it('reports the original failure even when cleanup fails, and logs the leftover keys', async () => {
    const { upload, warnings, failInsert, failRemove } = fakes();
    failInsert();
    failRemove();
    await expect(
      upload({ projectId: 1, storyId: 1, userId: 1, files: files(file('a', 'text/plain', bytes('a'))) }),
    ).rejects.toThrow('database down');
    expect(warnings).toEqual(['could not remove the object of a failed upload']);
  });

  it('refuses non-positive ids before reading anything', async () => {
    const { upload } = fakes();
    await expect(upload({ projectId: 0, storyId: 1, userId: 1, files: files() })).rejects.toMatchObject({
      kind: 'InvalidArgument',
    });
  });
});
