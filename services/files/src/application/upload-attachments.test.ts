import { parseEvent, resourceChangedV1, type OutboxMessage } from '@flowboard/events';
import { DomainError } from '@flowboard/service-kit';
import { decideGrowth } from '../domain/quota-growth';
import { toAttachmentMessage } from './attachment-message';
import type {
  AttachmentRecord,
  AttachmentRepository,
  BlobStore,
  IncomingFile,
  NewAttachment,
  QuotaStore,
} from './ports';
import { makeUploadAttachments, type UploadAttachmentsCommand } from './upload-attachments';

const ACCOUNT = 7;

/** In-memory blob store, repository and quota ledger: the use case's all-or-nothing rules without I/O. */
function fakes(options: { growStepBytes?: number } = {}) {
  const ledger = { used: 0, reserved: 0 };
  const reservations = new Map<number, number>();
  /** What a waiting reservation asked for. */
  const waiting = new Map<number, number>();
  let nextReservation = 1;
  const quota: QuotaStore = {
    async reserve(_account, limit, bytes) {
      if (ledger.used + ledger.reserved + bytes > limit) return undefined;
      if (bytes > 0 && waiting.size > 0) return undefined; // first come, first served
      ledger.reserved += bytes;
      reservations.set(nextReservation, bytes);
      return nextReservation++;
    },
    // The real repository's rule (domain/quota-growth.ts) over the in-memory ledger.
    async grow(id, limit, { needed, wanted }) {
      const held = reservations.get(id);
      if (held === undefined) return { outcome: 'gone' };
      const least = needed - held;
      if (least <= 0) return { outcome: 'ok', held };
      const growth = decideGrowth(
        {
          limitBytes: limit,
          usedBytes: ledger.used,
          reservedBytes: ledger.reserved,
          reservations: [...reservations].map(([r, bytes]) => ({ id: r, bytes, waitingFor: waiting.get(r) })),
        },
        id,
        least,
        Math.max(least, wanted - held),
      );
      if (growth.kind === 'refuse') {
        waiting.delete(id);
        return { outcome: 'over-limit' };
      }
      for (const victim of growth.preempt) {
        const bytes = reservations.get(victim) ?? 0;
        ledger.reserved -= bytes;
        reservations.set(victim, 0);
        waiting.set(victim, bytes + (waiting.get(victim) ?? 0));
      }
      const now = reservations.get(id) ?? 0;
      if (growth.kind === 'grant') {
        ledger.reserved += growth.bytes;
        reservations.set(id, now + growth.bytes);
        waiting.delete(id);
        return { outcome: 'ok', held: now + growth.bytes };
      }
      waiting.set(id, needed - now);
      return { outcome: 'wait', held: now };
    },
    renew: async (id) => reservations.has(id),
    async release(id) {
      ledger.reserved -= reservations.get(id) ?? 0;
      reservations.delete(id);
      waiting.delete(id);
    },
    releaseExpired: async () => 0,
    usage: async () => ({ usedBytes: ledger.used, reservedBytes: ledger.reserved }),
    totals: async () => ({ usedBytes: ledger.used, reservedBytes: ledger.reserved }),
  };
  const objects = new Map<string, { bytes: Buffer; contentType: string }>();
  const rows: AttachmentRecord[] = [];
  /** What the commit puts in the outbox (its transaction, in the real repository). */
  const outbox: OutboxMessage[] = [];
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
    listObjects: async function* () {},
    listIncompleteUploads: async function* () {},
    abortIncompleteUpload: async () => undefined,
  };
  const attachments: AttachmentRepository = {
    async commitUpload(reservationId, list: readonly NewAttachment[], events) {
      if (failInsert) throw new Error('database down');
      const held = reservations.get(reservationId);
      if (held === undefined) throw new Error('reservation gone');
      const actual = list.reduce((sum, a) => sum + a.sizeBytes, 0);
      if (actual > held) throw new Error('stored more than reserved');
      reservations.delete(reservationId);
      waiting.delete(reservationId);
      ledger.reserved -= held;
      ledger.used += actual;
      const created = list.map((a) => ({ ...a, id: nextId++, createdAt: new Date(), version: 1 }));
      rows.push(...created);
      outbox.push(...events(created));
      return created;
    },
    deleteScope: async () => [],
    existingKeys: async () => new Set(),
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
  let signals = 0;
  let tokens = 0;
  const newToken = () => (++tokens).toString(16).padStart(32, '0');
  const uploadWith = makeUploadAttachments({
    blobs,
    attachments,
    quota,
    reservations: {
      ttlSeconds: 60,
      growStepBytes: options.growStepBytes ?? 4,
      waitMs: { initial: 1, max: 2 },
    },
    logger,
    newToken,
    signal: () => void signals++,
  });
  /** Unless a test says otherwise: a roomy limit, and a chunked body (no upper bound known). */
  const upload = (
    command: Omit<UploadAttachmentsCommand, 'account' | 'maxTotalBytes'> &
      Partial<Pick<UploadAttachmentsCommand, 'account' | 'maxTotalBytes'>>,
  ) =>
    uploadWith({
      account: { accountId: ACCOUNT, limitBytes: 1_000_000 },
      maxTotalBytes: undefined,
      ...command,
    });
  return {
    upload,
    ledger,
    reservations,
    objects,
    rows,
    outbox,
    signals: () => signals,
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

  it('commits an attachment.created per file, by the uploader, about the story; then wakes the relay', async () => {
    const { upload, outbox, signals } = fakes();
    const created = await upload({
      projectId: 12,
      storyId: 3,
      userId: 7,
      files: files(file('a.txt', 'text/plain', bytes('ab')), file('b.txt', 'text/plain', bytes('c'))),
    });
    expect(outbox.map((m) => [m.topic, m.key])).toEqual([
      [resourceChangedV1.topic, '12'],
      [resourceChangedV1.topic, '12'],
    ]);
    expect(outbox.map((m) => parseEvent(resourceChangedV1, JSON.stringify(m.payload)).data)).toEqual(
      created.map((a) => ({
        projectId: 12,
        actorId: 7,
        type: 'attachment.created',
        subject: 'story:3',
        resource: toAttachmentMessage(a),
      })),
    );
    expect(signals()).toBe(1);
  });

  it('a failed commit publishes nothing and wakes nobody', async () => {
    const { upload, outbox, signals, failInsert } = fakes();
    failInsert();
    await expect(
      upload({
        projectId: 12,
        storyId: 3,
        userId: 7,
        files: files(file('a.txt', 'text/plain', bytes('ab'))),
      }),
    ).rejects.toThrow('database down');
    expect(outbox).toEqual([]);
    expect(signals()).toBe(0);
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

  describe('storage quota', () => {
    const account = (limitBytes: number) => ({ accountId: ACCOUNT, limitBytes });

    it('reserves the request bound up front and turns it into the bytes actually stored', async () => {
      const { upload, ledger, reservations } = fakes();
      const created = await upload({
        projectId: 1,
        storyId: 1,
        userId: 1,
        account: account(100),
        maxTotalBytes: 50,
        files: files(file('a', 'text/plain', bytes('abc')), file('b', 'text/plain', bytes('de'))),
      });
      expect(created.map((a) => a.accountId)).toEqual([ACCOUNT, ACCOUNT]);
      expect(ledger).toEqual({ used: 5, reserved: 0 });
      expect(reservations.size).toBe(0);
    });

    it('accepts files that fill the limit to the byte although the bound (part headers too) does not fit', async () => {
      const { upload, ledger, reservations } = fakes({ growStepBytes: 16 });
      ledger.used = 60;
      const created = await upload({
        projectId: 1,
        storyId: 1,
        userId: 1,
        account: account(100),
        maxTotalBytes: 41,
        files: files(
          file('a', 'text/plain', bytes('0123456789', '0123456789')),
          file('b', 'text/plain', bytes('0123456789', '0123456789')),
        ),
      });
      expect(created.map((a) => a.sizeBytes)).toEqual([20, 20]);
      expect(ledger).toEqual({ used: 100, reserved: 0 });
      expect(reservations.size).toBe(0);
    });

    it('refuses (402) at the first byte past the limit, removes what it wrote and gives the space back', async () => {
      const { upload, ledger, objects, rows, reservations } = fakes({ growStepBytes: 16 });
      ledger.used = 60;
      const error = await upload({
        projectId: 1,
        storyId: 1,
        userId: 1,
        account: account(100),
        maxTotalBytes: 41,
        files: files(
          file('a', 'text/plain', bytes('0123456789', '0123456789')),
          file('b', 'text/plain', bytes('0123456789', '01234567890')),
        ),
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'PlanLimitExceeded', problem: 'plan-limit' });
      expect(objects.size + rows.length + reservations.size).toBe(0);
      expect(ledger).toEqual({ used: 60, reserved: 0 });
    });

    it('refuses (402) before storing anything when the account is full or past its limit', async () => {
      for (const used of [100, 101]) {
        const { upload, ledger, objects, rows, reservations } = fakes();
        ledger.used = used;
        const error = await upload({
          projectId: 1,
          storyId: 1,
          userId: 1,
          account: account(100),
          maxTotalBytes: 41,
          files: files(file('a', 'text/plain', bytes('a'))),
        }).catch((e: unknown) => e);
        expect(error).toMatchObject({ kind: 'PlanLimitExceeded', problem: 'plan-limit' });
        expect(objects.size + rows.length + reservations.size).toBe(0);
        expect(ledger).toEqual({ used, reserved: 0 });
      }
    });

    it('grows by steps that never pass the request bound', async () => {
      const { upload, ledger } = fakes({ growStepBytes: 1000 });
      ledger.used = 50;
      let reservedAfterFirstChunk: number | undefined;
      async function* content(): AsyncGenerator<Uint8Array> {
        ledger.used = 0; // another attachment deleted meanwhile: a whole step would fit now
        yield Buffer.from('abc');
        reservedAfterFirstChunk = ledger.reserved;
        yield Buffer.from('d');
      }
      await upload({
        projectId: 1,
        storyId: 1,
        userId: 1,
        account: account(100),
        maxTotalBytes: 60,
        files: files(file('a', 'text/plain', content())),
      });
      expect(reservedAfterFirstChunk).toBe(60);
      expect(ledger).toEqual({ used: 4, reserved: 0 });
    });

    it('grows the reservation ahead of a chunked body, exactly up to the limit', async () => {
      const { upload, ledger } = fakes({ growStepBytes: 4 });
      const created = await upload({
        projectId: 1,
        storyId: 1,
        userId: 1,
        account: account(10),
        files: files(file('a', 'text/plain', bytes('abc', 'defg', 'hij'))),
      });
      expect(created[0]!.sizeBytes).toBe(10);
      expect(ledger).toEqual({ used: 10, reserved: 0 });
    });

    it('stops a chunked body at the limit (402), removes what it wrote and gives the space back', async () => {
      const { upload, ledger, objects, rows } = fakes({ growStepBytes: 4 });
      const error = await upload({
        projectId: 1,
        storyId: 1,
        userId: 1,
        account: account(10),
        files: files(file('a', 'text/plain', bytes('abcdef')), file('b', 'text/plain', bytes('ghijk'))),
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'PlanLimitExceeded' });
      expect(objects.size + rows.length).toBe(0);
      expect(ledger).toEqual({ used: 0, reserved: 0 });
    });

    it('uploads racing for the last room: every one that fits is accepted, whatever the interleaving', async () => {
      // The case in small: room for 3 files and 5 bytes, 8 uploads of 1000 bytes at once, 2 of them with
      // a bound that fits whole (it also counts headers), the others growing 100 bytes at a time.
      for (let seed = 1; seed <= 25; seed++) {
        const { upload, ledger, reservations } = fakes({ growStepBytes: 100 });
        ledger.used = 5;
        let state = seed;
        const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 3;
        async function* paced(): AsyncGenerator<Uint8Array> {
          for (let i = 0; i < 10; i++) {
            for (let t = Math.floor(random()); t > 0; t--) await new Promise((r) => setImmediate(r));
            yield Buffer.alloc(100);
          }
        }
        let peak = 0;
        const sampler = setInterval(() => (peak = Math.max(peak, ledger.used + ledger.reserved)), 0);
        const outcomes = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            upload({
              projectId: 1,
              storyId: 1,
              userId: 1,
              account: account(3000 + 10),
              maxTotalBytes: i < 2 ? 1000 + 150 : undefined,
              files: files(file(`f${i}`, 'text/plain', paced())),
            }).then(
              () => 'ok',
              (e: { kind?: string }) => e.kind,
            ),
          ),
        ).finally(() => clearInterval(sampler));
        expect(outcomes.filter((o) => o === 'ok')).toHaveLength(3);
        expect(outcomes.filter((o) => o !== 'ok').every((o) => o === 'PlanLimitExceeded')).toBe(true);
        expect(peak).toBeLessThanOrEqual(3010);
        expect(ledger).toEqual({ used: 3005, reserved: 0 });
        expect(reservations.size).toBe(0);
      }
    });

    it('gives the reservation back when the rows cannot be recorded', async () => {
      const { upload, ledger, failInsert } = fakes();
      failInsert();
      await expect(
        upload({
          projectId: 1,
          storyId: 1,
          userId: 1,
          maxTotalBytes: 30,
          files: files(file('a', 'text/plain', bytes('a'))),
        }),
      ).rejects.toThrow('database down');
      expect(ledger).toEqual({ used: 0, reserved: 0 });
    });

    it('reserves nothing for a request without files', async () => {
      const { upload, reservations } = fakes();
      await expect(
        upload({ projectId: 1, storyId: 1, userId: 1, maxTotalBytes: 30, files: files() }),
      ).rejects.toMatchObject({ kind: 'InvalidArgument' });
      expect(reservations.size).toBe(0);
    });
  });
});
