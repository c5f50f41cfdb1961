import { multipartFileBytesBound } from './upload-size';

describe('multipartFileBytesBound', () => {
  const type = 'multipart/form-data; boundary=XyZ';

  it('is the body minus the framing every multipart body has', () => {
    // "--XyZ\r\n" (7) + "\r\n--XyZ--" (9)
    expect(multipartFileBytesBound('1000', type)).toBe(1000 - 16);
  });

  it('never exceeds the real file bytes of a minimal body', () => {
    const body = '--XyZ\r\nContent-Disposition: form-data; name="f"; filename="a"\r\n\r\nhello\r\n--XyZ--';
    expect(multipartFileBytesBound(String(body.length), type)).toBeGreaterThanOrEqual(5);
  });

  it('reads a quoted boundary', () => {
    expect(multipartFileBytesBound('100', 'multipart/form-data; boundary="a b"')).toBe(100 - 16);
  });

  it('is undefined without a usable length or boundary, and never negative', () => {
    expect(multipartFileBytesBound(undefined, type)).toBeUndefined();
    expect(multipartFileBytesBound('12a', type)).toBeUndefined();
    expect(multipartFileBytesBound('100', 'multipart/form-data')).toBeUndefined();
    expect(multipartFileBytesBound('3', type)).toBe(0);
  });
});
