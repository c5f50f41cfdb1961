/**
 * An upper bound on the total size of the files in a multipart/form-data body of `Content-Length` bytes: the
 * body minus the framing every such body has — the first delimiter `--B` and the last `\r\n--B--`, plus the
 * line break after the first (RFC 2046 §5.1.1). Reserved before streaming when it fits, it decides an upload's
 * quota whole, up front; it exceeds the files' size by the parts' headers (and any other fields), so it never
 * decides a refusal: near the limit the file bytes are counted as they arrive. Undefined without a usable
 * Content-Length (a chunked body) or boundary.
 */
export function multipartFileBytesBound(
  contentLength: string | undefined,
  contentType: string | undefined,
): number | undefined {
  if (contentLength === undefined || !/^[0-9]{1,16}$/.test(contentLength)) return undefined;
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType ?? '');
  const b = boundary?.[1] ?? boundary?.[2];
  if (b === undefined) return undefined;
  const framing = 2 + b.length + 2 + (2 + 2 + b.length + 2);
  return Math.max(0, Number(contentLength) - framing);
}
