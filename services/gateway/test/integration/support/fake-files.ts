import http from 'node:http';
import { loadFilesProto, type files } from '@flowboard/proto';
import { DomainError, unary, type GrpcServiceRegistration, type Logger } from '@flowboard/service-kit';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The files service: metadata RPCs over gRPC and the internal HTTP port for streams. */
export class FakeFiles {
  readonly received: ReceivedRequest[] = [];
  /** Uploads that have begun to arrive (counted before their bodies). */
  uploadsStarted = 0;
  /** Attachment metadata served over gRPC (seed with `add`); keyed by id. */
  readonly attachments = new Map<
    number,
    files.Attachment & { id: number; project_id: number; story_id: number }
  >();
  /** The last ListAttachments request (to check the forwarded `where`). */
  lastList?: files.ListAttachmentsRequest__Output;
  /** What GetStorageUsage reports, per account id (absent: nothing stored). */
  readonly storageUsage = new Map<number, { used_bytes: number; reserved_bytes: number }>();
  private nextId = 100;

  add(projectId: number, storyId: number, fileName: string): files.Attachment & { id: number } {
    const id = this.nextId++;
    const a = {
      id,
      project_id: projectId,
      story_id: storyId,
      file_name: fileName,
      size_in_bytes: 3,
      content_type: 'text/plain',
      token: id.toString(16).padStart(32, '0'),
    };
    this.attachments.set(id, a);
    return a;
  }

  private find(r: { project_id: number; story_id: number; attachment_id: number }) {
    const a = this.attachments.get(r.attachment_id);
    if (!a || a.project_id !== r.project_id || a.story_id !== r.story_id)
      throw new DomainError('NotFound', 'No such attachment.');
    return a;
  }
  /** Bytes served for any attachment content download. */
  content = Buffer.alloc(0);
  /**
   * When set, the next upload is refused with this status and error JSON; `early`: as soon as it arrives, before
   * its body (which is then read to the end, as files does).
   */
  refuseNextUpload?: { status: number; body: unknown; early?: boolean };

  registration(logger: Logger): GrpcServiceRegistration {
    const { FilesService } = loadFilesProto().flowboard.files.v1;
    const implementation: files.FilesServiceHandlers = {
      ListAttachments: unary(logger, async (r: files.ListAttachmentsRequest__Output) => {
        this.lastList = r;
        if (r.where.trim() !== '')
          throw new DomainError('InvalidArgument', 'Unknown filter property.', { problem: 'invalid-filter' });
        const attachments = [...this.attachments.values()]
          .filter((a) => a.project_id === r.project_id && a.story_id === r.story_id)
          .sort((x, y) => x.id - y.id);
        return { attachments };
      }),
      GetAttachment: unary(logger, async (r: files.GetAttachmentRequest__Output) => ({
        attachment: this.find(r),
      })),
      RenameAttachment: unary(logger, async (r: files.RenameAttachmentRequest__Output) => {
        const a = this.find(r);
        a.file_name = r.file_name.trim().split('/').at(-1)!;
        return { attachment: a };
      }),
      DeleteAttachment: unary(logger, async (r: files.DeleteAttachmentRequest__Output) => {
        this.attachments.delete(this.find(r).id);
        return {};
      }),
      GetStorageUsage: unary(
        logger,
        async (r: files.GetStorageUsageRequest__Output) =>
          this.storageUsage.get(r.account_id) ?? { used_bytes: 0, reserved_bytes: 0 },
      ),
    };
    return { name: 'flowboard.files.v1.FilesService', definition: FilesService.service, implementation };
  }

  httpServer(): http.Server {
    return http.createServer((req, res) => {
      // As files does: no caller identity, 401 before anything else (the gateway's probe of this port asks so).
      if (req.headers['x-flowboard-user-id'] === undefined) {
        req.resume();
        res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"kind":"Unauthenticated"}');
        return;
      }
      const chunks: Buffer[] = [];
      if (req.method === 'POST') this.uploadsStarted++;
      const early = req.method === 'POST' && this.refuseNextUpload?.early ? this.refuseNextUpload : undefined;
      if (early) {
        this.refuseNextUpload = undefined;
        res.writeHead(early.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(early.body));
      }
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks),
        };
        this.received.push(received);
        if (!early) this.answer(received, res);
      });
    });
  }

  private answer(req: ReceivedRequest, res: http.ServerResponse): void {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method === 'POST' && /^\/internal\/projects\/\d+\/stories\/\d+\/attachments$/.test(req.url)) {
      const refusal = this.refuseNextUpload;
      this.refuseNextUpload = undefined;
      if (refusal) return json(refusal.status, refusal.body);
      return json(200, {
        items: [
          { token: 'a'.repeat(32), contentType: 'text/plain', sizeInBytes: 3, fileName: 'a.txt', id: 1 },
          {
            id: 2,
            fileName: 'plans & "specs".txt',
            sizeInBytes: 5,
            contentType: 'text/plain',
            token: 'b'.repeat(32),
          },
        ],
      });
    }
    const download = /^\/internal\/projects\/\d+\/stories\/\d+\/attachments\/(\d+)\/content$/.exec(req.url);
    if (download && (req.method === 'GET' || req.method === 'HEAD')) {
      if (download[1] !== '1')
        return json(404, { kind: 'NotFound', problem: 'not-found', message: 'No such attachment.' });
      // Only `bytes=a-b` (enough to check what the gateway passes through); files implements the full rules.
      const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ''));
      const total = this.content.length;
      if (range && Number(range[1]) >= total) {
        res.writeHead(416, { 'Content-Range': `bytes */${total}`, 'Content-Length': 0 });
        return void res.end();
      }
      const [start, end] = range ? [Number(range[1]), Math.min(Number(range[2]), total - 1)] : [0, total - 1];
      const body = this.content.subarray(start, end + 1);
      res.writeHead(range ? 206 : 200, {
        'Content-Type': 'application/octet-stream',
        'Content-Length': body.length,
        'Content-Disposition': 'attachment; filename="plans.bin"',
        'Accept-Ranges': 'bytes',
        ...(range ? { 'Content-Range': `bytes ${start}-${end}/${total}` } : {}),
        'X-Internal-Secret': 'must not leak',
      });
      // Several writes, so the gateway has to stream rather than get one chunk.
      for (let i = 0; i < body.length; i += 65536) res.write(body.subarray(i, i + 65536));
      return void res.end();
    }
    json(404, { kind: 'NotFound', problem: 'not-found', message: 'No such route.' });
  }
}
