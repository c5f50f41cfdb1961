import { Readable } from 'node:stream';
import { parseEvent, resourceChangedV1, type OutboxMessage } from '@flowboard/events';
import { DomainError } from '@flowboard/service-kit';
import { toAttachmentMessage } from './attachment-message';
import { makeDeleteAttachment } from './delete-attachment';
import { makeListAttachments } from './list-attachments';
import { makeOpenAttachmentContent } from './open-attachment-content';
import type { AttachmentRecord, AttachmentRepository, BlobStore } from './ports';
import { makeRenameAttachment } from './rename-attachment';

const record = (id: number, over: Partial<AttachmentRecord> = {}): AttachmentRecord => ({
  id,
  projectId: 1,
  storyId: 2,
  fileName: `f${id}.txt`,
  contentType: 'text/plain',
  sizeBytes: 10,
  token: String(id).padStart(32, '0'),
  objectKey: `1/2/${String(id).padStart(32, '0')}`,
  createdBy: 7,
  accountId: 7,
  createdAt: new Date(0),
  version: 1,
  ...over,
});

function fakes() {
  let rows = [record(1), record(2), record(3, { storyId: 9 })];
  const objects = new Map(rows.map((r) => [r.objectKey, Buffer.from('0123456789')]));
  const warnings: Array<{ details: object; message: string }> = [];
  let failRemove = false;
  const gets: Array<{ key: string; range?: { start: number; end: number } }> = [];
  const mine = (p: number, s: number, id: number) =>
    rows.find((r) => r.projectId === p && r.storyId === s && r.id === id);
  /** What the writes put in the outbox (their transaction, in the real repository). */
  const outbox: OutboxMessage[] = [];
  const attachments: AttachmentRepository = {
    commitUpload: async () => [],
    deleteScope: async () => [],
    existingKeys: async () => new Set(),
    listByStory: async (p, s) => rows.filter((r) => r.projectId === p && r.storyId === s),
    find: async (p, s, id) => mine(p, s, id),
    async rename(p, s, id, fileName, _expectedVersion, events) {
      const r = mine(p, s, id);
      if (!r) return undefined;
      const before = { ...r };
      // As migration 0003's trigger: the version rises when the name changes.
      Object.assign(r, { fileName, version: r.fileName === fileName ? r.version : r.version + 1 });
      outbox.push(...events({ before, after: { ...r } }));
      return r;
    },
    async delete(p, s, id, _expectedVersion, events) {
      const r = mine(p, s, id);
      rows = rows.filter((x) => x !== r);
      if (r) outbox.push(...events(r));
      return r;
    },
  };
  const blobs: BlobStore = {
    ensureBucket: async () => undefined,
    putStream: async () => undefined,
    async getStream(key, range) {
      gets.push(range ? { key, range } : { key });
      const bytes = objects.get(key)!;
      const slice = range ? bytes.subarray(range.start, range.end + 1) : bytes;
      return { stream: Readable.from([slice]), size: slice.length };
    },
    async remove(key) {
      if (failRemove) throw new Error('store down');
      objects.delete(key);
    },
    listObjects: async function* () {},
    listIncompleteUploads: async function* () {},
    abortIncompleteUpload: async () => undefined,
  };
  const logger = { warn: (details: object, message: string) => void warnings.push({ details, message }) };
  return {
    attachments,
    outbox,
    blobs,
    objects,
    warnings,
    gets,
    rows: () => rows,
    failRemove: () => (failRemove = true),
    logger,
  };
}

const text = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
};

describe('ListAttachments', () => {
  it("lists one story's attachments; a blank where is no filter", async () => {
    const list = makeListAttachments(fakes().attachments);
    expect((await list(1, 2)).map((a) => a.id)).toEqual([1, 2]);
    expect((await list(1, 2, '  ')).map((a) => a.id)).toEqual([1, 2]);
  });

  it.each(['fileName:a', 'not(id:1)', 'id:1 or token:x', 'broken('])(
    'where=%s is invalid-filter',
    async (where) => {
      const list = makeListAttachments(fakes().attachments);
      await expect(list(1, 2, where)).rejects.toMatchObject({
        kind: 'InvalidArgument',
        problem: 'invalid-filter',
      });
    },
  );
});

/** The resource-changed events of an outbox, as their data. */
const changes = (outbox: readonly OutboxMessage[]) =>
  outbox.map((m) => {
    expect(m).toMatchObject({ topic: resourceChangedV1.topic, key: '1' });
    return parseEvent(resourceChangedV1, JSON.stringify(m.payload)).data;
  });

describe('RenameAttachment', () => {
  const renaming = (attachmentId: number, fileName: string) => ({
    projectId: 1,
    storyId: 2,
    attachmentId,
    fileName,
    actorId: 5,
  });

  it('sanitises the new name with the upload rules', async () => {
    const rename = makeRenameAttachment(fakes().attachments);
    expect((await rename(renaming(1, '../../etc/\u202Epasswd\u0007.txt'))).fileName).toBe('passwd.txt');
    expect((await rename(renaming(2, 'Cafe\u0301 plan.pdf'))).fileName).toBe('Café plan.pdf');
  });

  it('refuses a blank name; another story or a missing id is NotFound', async () => {
    const f = fakes();
    const rename = makeRenameAttachment(f.attachments);
    await expect(rename(renaming(1, '  '))).rejects.toMatchObject({ problem: 'invalid-field' });
    await expect(rename(renaming(3, 'x'))).rejects.toMatchObject({ kind: 'NotFound' });
    await expect(rename(renaming(0, 'x'))).rejects.toMatchObject({ kind: 'NotFound' });
    expect(f.outbox).toEqual([]);
  });

  it('publishes attachment.updated by the caller when the name changed, nothing for the same name', async () => {
    const f = fakes();
    let signals = 0;
    const rename = makeRenameAttachment(f.attachments, () => signals++);
    const renamed = await rename(renaming(1, 'plan.txt'));
    expect(changes(f.outbox)).toEqual([
      {
        projectId: 1,
        actorId: 5,
        type: 'attachment.updated',
        subject: 'story:2',
        resource: toAttachmentMessage(renamed),
      },
    ]);
    expect(renamed.version).toBe(2);
    await rename(renaming(1, 'plan.txt'));
    expect(f.outbox).toHaveLength(1);
    expect(signals).toBe(2);
  });
});

describe('DeleteAttachment', () => {
  const deleting = (attachmentId: number) => ({ projectId: 1, storyId: 2, attachmentId, actorId: 6 });

  it('removes the row and its object; publishes attachment.deleted with the row as it was', async () => {
    const f = fakes();
    await makeDeleteAttachment(f)(deleting(1));
    expect(f.rows().map((r) => r.id)).toEqual([2, 3]);
    expect(f.objects.has(record(1).objectKey)).toBe(false);
    expect(f.warnings).toEqual([]);
    expect(changes(f.outbox)).toEqual([
      {
        projectId: 1,
        actorId: 6,
        type: 'attachment.deleted',
        subject: 'story:2',
        resource: toAttachmentMessage(record(1)),
      },
    ]);
  });

  it('succeeds when the object cannot be removed, logging its key for a sweeper', async () => {
    const f = fakes();
    f.failRemove();
    await makeDeleteAttachment(f)(deleting(2));
    expect(f.rows().map((r) => r.id)).toEqual([1, 3]);
    expect(f.warnings).toHaveLength(1);
    expect(f.warnings[0]!.details).toMatchObject({ objectKey: record(2).objectKey, sweep: true });
  });

  it('is NotFound for another story, and then touches no object', async () => {
    const f = fakes();
    const error = await makeDeleteAttachment(f)(deleting(3)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'NotFound' });
    expect(f.objects.size).toBe(3);
    expect(f.outbox).toEqual([]);
  });
});

describe('OpenAttachmentContent', () => {
  it('whole without a usable Range, partial with one, unsatisfiable without opening the object', async () => {
    const f = fakes();
    const open = makeOpenAttachmentContent(f);
    const whole = await open(1, 2, 1);
    expect(whole.kind).toBe('whole');
    const ignored = await open(1, 2, 1, 'bytes=0-1,4-5');
    expect(ignored.kind).toBe('whole');
    const partial = await open(1, 2, 1, 'bytes=-3');
    expect(partial).toMatchObject({ kind: 'partial', size: 3, total: 10, range: { start: 7, end: 9 } });
    if (partial.kind !== 'partial') throw new Error('expected partial');
    expect(await text(partial.stream)).toBe('789');
    const before = f.gets.length;
    expect(await open(1, 2, 1, 'bytes=10-')).toMatchObject({ kind: 'unsatisfiable', total: 10 });
    expect(f.gets.length).toBe(before);
  });
});
