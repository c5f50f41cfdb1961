import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import {
  DomainError,
  extractTraceContext,
  inSpan,
  newRequestId,
  runWithContext,
  apiKeyOf,
  API_KEY_ID_KEY,
  API_KEY_NAME_KEY,
  SpanKind,
  type Logger,
} from '@flowboard/service-kit';
import type { OpenAttachmentContent } from '../application/open-attachment-content';
import type { AttachmentRecord } from '../application/ports';
import type { UploadAttachments } from '../application/upload-attachments';
import { contentRange } from '../domain/byte-range';
import { contentDisposition } from '../domain/content-disposition';
import { multipartFileBytesBound } from '../domain/upload-size';
import { readMultipartFiles } from './multipart';
import { sendError, sendJson } from './respond';

export interface HttpDeps {
  logger: Logger;
  maxFileBytes: number;
  uploadAttachments: UploadAttachments;
  openAttachmentContent: OpenAttachmentContent;
}

const ID = '([1-9][0-9]{0,14})'; // positive, and far below 2^53
const ATTACHMENTS = new RegExp(`^/internal/projects/${ID}/stories/${ID}/attachments$`);
const CONTENT = new RegExp(`^/internal/projects/${ID}/stories/${ID}/attachments/${ID}/content$`);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const USER_HEADER = 'x-flowboard-user-id';
/** Set by the gateway on uploads from the project's account (membership): whose quota, and its limit. */
export const ACCOUNT_HEADER = 'x-flowboard-account-id';
export const STORAGE_LIMIT_HEADER = 'x-flowboard-storage-limit';
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * The internal HTTP port for byte streams, reachable only from the gateway, which has already authenticated the
 * caller, checked their access and that the story exists; it sends the caller's id and the request id, and on
 * uploads the project's account and its storage limit (trusted: the gateway drops any such header a caller sends).
 *
 *   POST      /internal/projects/{p}/stories/{s}/attachments               multipart upload → {items: [...]}
 *   GET|HEAD  /internal/projects/{p}/stories/{s}/attachments/{a}/content   the bytes (one `Range` → 206/416)
 */
export function createHttpServer(deps: HttpDeps): http.Server {
  const { logger } = deps;

  async function route(req: http.IncomingMessage, res: http.ServerResponse, userId: number): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    let m = ATTACHMENTS.exec(path);
    if (m) {
      if (req.method !== 'POST') return methodNotAllowed(req, res, 'POST');
      const [projectId, storyId] = [Number(m[1]), Number(m[2])];
      const items = await deps.uploadAttachments({
        projectId,
        storyId,
        userId,
        account: uploadAccount(req),
        maxTotalBytes: multipartFileBytesBound(req.headers['content-length'], req.headers['content-type']),
        files: readMultipartFiles(req, { maxFileBytes: deps.maxFileBytes }),
      });
      const bytes = items.reduce((sum, a) => sum + a.sizeBytes, 0);
      logger.info({ projectId, storyId, files: items.length, bytes }, 'attachments uploaded');
      return sendJson(res, 200, { items: items.map(toAttachmentJson) });
    }
    m = CONTENT.exec(path);
    if (m) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(req, res, 'GET, HEAD');
      const range = req.headers.range;
      const content = await deps.openAttachmentContent(Number(m[1]), Number(m[2]), Number(m[3]), range);
      const { attachment } = content;
      const common = {
        'Content-Type': attachment.contentType,
        'Content-Disposition': contentDisposition(attachment.fileName),
        'X-Content-Type-Options': 'nosniff',
        'Accept-Ranges': 'bytes',
      };
      if (content.kind === 'unsatisfiable') {
        // RFC 9110 §15.5.17: 416 with the current length; no body.
        res.writeHead(416, {
          'Content-Range': contentRange('unsatisfiable', content.total),
          'Content-Length': 0,
        });
        res.end();
        return;
      }
      const { stream, size } = content;
      if (content.kind === 'partial') {
        res.writeHead(206, {
          ...common,
          'Content-Length': size,
          'Content-Range': contentRange(content.range, content.total),
        });
      } else {
        res.writeHead(200, { ...common, 'Content-Length': size });
      }
      if (req.method === 'HEAD') {
        stream.destroy();
        res.end();
        return;
      }
      // Streams with back-pressure; if either side fails, both are destroyed (a cut-off download, never a hang).
      try {
        await pipeline(stream, res);
      } catch (err) {
        logger.warn({ err, attachmentId: attachment.id }, 'download interrupted');
      }
      return;
    }
    throw new DomainError('NotFound', 'Not found');
  }

  function methodNotAllowed(req: http.IncomingMessage, res: http.ServerResponse, allow: string): void {
    sendError(
      req,
      res,
      new DomainError('MethodNotAllowed', `Method ${req.method} is not allowed here.`),
      logger,
      { Allow: allow },
    );
  }

  return http.createServer((req, res) => {
    const rawRequestId = req.headers[REQUEST_ID_HEADER];
    const requestId =
      typeof rawRequestId === 'string' && REQUEST_ID.test(rawRequestId) ? rawRequestId : newRequestId();
    res.setHeader('X-Request-Id', requestId);
    const rawUser = req.headers[USER_HEADER];
    const userId =
      typeof rawUser === 'string' && /^[1-9][0-9]{0,14}$/.test(rawUser) ? Number(rawUser) : undefined;

    const apiKey = apiKeyOf(headerText(req, API_KEY_ID_KEY), headerText(req, API_KEY_NAME_KEY));
    const context =
      userId === undefined
        ? { requestId }
        : { requestId, userId, ...(apiKey ? { apiKey } : {}), changes: [] };
    runWithContext(context, () => {
      if (userId === undefined) {
        sendError(req, res, new DomainError('Unauthenticated', 'Missing caller identity.'), logger);
        return;
      }
      // A server span in the gateway's trace (traceparent from the proxied request). Named by method only: paths
      // hold ids, and the gateway's span above it names the route.
      const parent = extractTraceContext(req.headers);
      inSpan(`files ${req.method ?? 'GET'}`, { kind: SpanKind.SERVER, parent }, () =>
        route(req, res, userId),
      ).catch((error: unknown) => sendError(req, res, error, logger));
    });
  });
}

const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;

/** The account headers are the gateway's duty: without them no upload is accepted (no quota, no bytes). */
function uploadAccount(req: http.IncomingMessage): { accountId: number; limitBytes: number } {
  const account = req.headers[ACCOUNT_HEADER];
  const limit = req.headers[STORAGE_LIMIT_HEADER];
  if (
    typeof account !== 'string' ||
    typeof limit !== 'string' ||
    !DECIMAL.test(account) ||
    !DECIMAL.test(limit) ||
    account === '0'
  ) {
    throw new DomainError('Internal', 'Upload without its account and storage limit.');
  }
  return { accountId: Number(account), limitBytes: Number(limit) };
}

/** An uploaded attachment in the API's field names, with its version (1): the gateway may make it an ETag. */
export const toAttachmentJson = (a: AttachmentRecord) => ({
  id: a.id,
  fileName: a.fileName,
  sizeInBytes: a.sizeBytes,
  contentType: a.contentType,
  token: a.token,
  version: a.version,
});

/** A header sent once, as text (the gateway sends each of its trusted headers once). */
const headerText = (req: http.IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
};
