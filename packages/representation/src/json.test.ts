import { XML_ONLY_EMPTY, type Dto } from './dto';
import { toJson } from './json';

describe('toJson', () => {
  it('leaves out XML-only values and keeps everything else as JSON.stringify writes it', () => {
    const dto = {
      id: 1,
      text: 'a "quoted" <b>',
      limit: XML_ONLY_EMPTY,
      tags: [],
      none: undefined,
      nested: { ok: true },
    };
    expect(toJson(dto as Dto)).toBe('{"id":1,"text":"a \\"quoted\\" <b>","tags":[],"nested":{"ok":true}}');
  });

  it('never writes null for a property, at any depth (a null that slipped into a DTO is dropped)', () => {
    const dto = { a: null, b: { c: null, d: 2 }, e: [{ f: null }] } as unknown as Dto;
    expect(toJson(dto)).toBe('{"b":{"d":2},"e":[{}]}');
  });
});
