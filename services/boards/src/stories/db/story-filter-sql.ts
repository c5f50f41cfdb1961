import type { UserAlias } from '../application/ports';
import { parseDeadline } from '../domain/deadline';
import type { FilterNode } from '../../shared/domain/filter';

/**
 * Compiles a story filter AST (shared/domain/filter.ts) into a SQL boolean over `stories s JOIN phases p`.
 * Every value becomes a bind parameter (`params` is appended to; placeholders continue its numbering); only
 * fixed SQL text comes from here. Each term is wrapped in coalesce(..., false), so NULL columns never make
 * `not(...)` drop rows: `not(owner:5)` matches unassigned stories too.
 */
export function compileStoryFilter(node: FilterNode, params: unknown[], users: readonly UserAlias[]): string {
  const bind = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const integer = (value: string): number | undefined =>
    /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : undefined;

  /** owner:/creator: match an id, a username or a display name (ignoring case); an unknown name matches nothing. */
  const userIds = (value: string): number[] => {
    const wanted = value.trim().toLowerCase();
    const ids = users
      .filter((u) => u.user_name.toLowerCase() === wanted || u.name.toLowerCase() === wanted)
      .map((u) => u.id);
    const id = integer(value);
    if (id !== undefined) ids.push(id);
    return ids;
  };

  function term(property: string, value: string): string {
    switch (property) {
      case 'id': {
        const id = integer(value);
        return id === undefined ? 'false' : `s.id = ${bind(id)}`;
      }
      case 'text':
      case 'details':
        return `strpos(lower(s.${property}), lower(${bind(value)})) > 0`;
      case 'color':
      case 'size':
      case 'priority':
      case 'status':
        return `lower(s.${property}) = lower(${bind(value.trim())})`;
      case 'phase': {
        const id = integer(value);
        const byName = `lower(p.name) = lower(${bind(value.trim())})`;
        return id === undefined ? byName : `(s.phase_id = ${bind(id)} OR ${byName})`;
      }
      case 'owner':
      case 'creator': {
        const ids = userIds(value);
        return ids.length === 0 ? 'false' : `s.${property}_id = ANY(${bind(ids)}::bigint[])`;
      }
      case 'tag': {
        const id = integer(value);
        const match =
          id === undefined
            ? `lower(t.name) = lower(${bind(value.trim())})`
            : `(t.id = ${bind(id)} OR lower(t.name) = lower(${bind(value.trim())}))`;
        return `EXISTS (SELECT 1 FROM story_tags st JOIN tags t ON t.project_id = st.project_id AND t.id = st.tag_id
                        WHERE st.project_id = s.project_id AND st.story_id = s.id AND ${match})`;
      }
      case 'deadline':
        return deadline(value.trim());
      default:
        // The parser only lets known properties through; this is a programming error.
        throw new Error(`no SQL for filter property '${property}'`);
    }
  }

  /** `deadline:2011-02-24` = that (UTC) day; `deadline:<…` / `deadline:>…` compare; an unreadable date matches nothing. */
  function deadline(value: string): string {
    const op = value[0] === '<' || value[0] === '>' ? value[0] : undefined;
    let at: Date | null;
    try {
      at = parseDeadline(op ? value.slice(1) : value);
    } catch {
      return 'false';
    }
    if (!at) return 'false';
    if (op) return `s.deadline ${op} ${bind(at)}`;
    const next = new Date(at.getTime() + 86_400_000);
    return `(s.deadline >= ${bind(at)} AND s.deadline < ${bind(next)})`;
  }

  function compile(n: FilterNode): string {
    switch (n.kind) {
      case 'or':
        return `(${n.items.map(compile).join(' OR ')})`;
      case 'and':
        return `(${n.items.map(compile).join(' AND ')})`;
      case 'not':
        return `(NOT ${compile(n.item)})`;
      case 'term':
        return `coalesce(${term(n.property, n.value)}, false)`;
    }
  }

  return compile(node);
}
