import { readXml, xmlFields, itemValue, XmlBodyError } from './xml-reader';

describe('readXml (docs/compat.md §2)', () => {
  it('refuses DOCTYPE and ENTITY declarations without expanding anything', () => {
    const billionLaughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><story><text>&lol;</text></story>';
    expect(() => readXml(billionLaughs)).toThrow(XmlBodyError);
    expect(() => readXml('<!doctype story><story/>')).toThrow(/DOCTYPE/);
    expect(() => readXml('<story><!ENTITY x "y"></story>')).toThrow(XmlBodyError);
  });

  it('refuses malformed XML, several roots and unknown entities', () => {
    expect(() => readXml('<story><text>a</story>')).toThrow(XmlBodyError);
    expect(() => readXml('<a/><b/>')).toThrow(/one root/);
    expect(() => readXml('<a>&nbsp;</a>')).toThrow(/Unknown entity/);
    expect(() => readXml('{"text":"json"}')).toThrow(XmlBodyError);
  });

  it('turns children into fields: text, "" for empty elements, nested objects', () => {
    const root = readXml(
      '<?xml version="1.0" encoding="utf-8"?>\n<anything>\n  <text> Buy boat &quot;The Sea Word&quot; &amp; more &#65;&#x42; </text>\n' +
        '  <details /><limit></limit><phase><id>3</id></phase><owner><userName>gob</userName></owner><size>5</size>\n</anything>',
    );
    expect(xmlFields(root)).toEqual({
      text: 'Buy boat "The Sea Word" & more AB',
      details: '',
      limit: '',
      phase: { id: '3' },
      owner: { userName: 'gob' },
      size: '5',
    });
  });

  it('reads known array fields with one item per child', () => {
    const root = readXml(
      '<story><tags><tag>come on</tag><tag><id>3</id></tag><tag><name>hop ons</name></tag></tags><tasks /></story>',
    );
    expect(xmlFields(root)).toEqual({ tags: ['come on', { id: '3' }, { name: 'hop ons' }], tasks: [] });
  });

  it('reads an array body as the children of the root, and a scalar as its text', () => {
    const phases = readXml('<phases><phase>1</phase><phase><id>2</id></phase></phases>');
    expect(phases.children.map(itemValue)).toEqual(['1', { id: '2' }]);
    expect(itemValue(readXml('<user>bob</user>'))).toBe('bob');
  });

  it('keeps CDATA text and ignores attributes and comments', () => {
    expect(xmlFields(readXml('<s a="1"><!-- c --><text><![CDATA[<b>&]]></text></s>'))).toEqual({
      text: '<b>&',
    });
  });

  it('never lets __proto__ reach a prototype', () => {
    expect(() => readXml('<s><__proto__><polluted>yes</polluted></__proto__></s>')).toThrow(XmlBodyError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
