import http from 'node:http';
import { loadFilesProto, type files } from '@flowboard/proto';
import { DomainError, unary, type GrpcServiceRegistration, type Logger } from '@flowboard/service-kit';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The files service: metadata RPCs over gRPC (unused so far) and the internal HTTP port for streams. */
export class FakeFiles {
  readonly received: ReceivedRequest[] = [];
  /** Bytes served for any attachment content download. */
  content = Buffer.alloc(0);
  /** When set, the next upload is refused with this status and error JSON. */
  refuseNextUpload?: { status: number; body: unknown };

  registration(logger: Logger): GrpcServiceRegistration {
    const { FilesService } = loadFilesProto().flowboard.files.v1;
    const implementation: files.FilesServiceHandlers = {
      ListAttachments: unary(logger, async () => ({ attachments: [] })),
      GetAttachment: unary(logger, async () => {
        throw new DomainError('NotFound', 'No such attachment.');
      }),
    };
    return { name: 'flowboard.files.v1.FilesService', definition: FilesService.service, implementation };
  }

  httpServer(): http.Server {
    return http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks),
        };
        this.received.push(received);
        this.answer(received, res);
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
      res.writeHead(200, {
        'Content-Type': 'application/octet-stream',
        'Content-Length': this.content.length,
        'Content-Disposition': 'attachment; filename="plans.bin"',
        'X-Internal-Secret': 'must not leak',
      });
      // Several writes, so the gateway has to stream rather than get one chunk.
      for (let i = 0; i < this.content.length; i += 65536) res.write(this.content.subarray(i, i + 65536));
      return void res.end();
    }
    json(404, { kind: 'NotFound', problem: 'not-found', message: 'No such route.' });
  }
}
