import { XML_ONLY_EMPTY, type Dto } from './dto';

/** JSON never contains null, and values meant only for XML are left out (api-compat §1.3, §2). */
export function toJson(value: Dto): string {
  return JSON.stringify(value, (_key, v: unknown) => (v === null || v === XML_ONLY_EMPTY ? undefined : v));
}
