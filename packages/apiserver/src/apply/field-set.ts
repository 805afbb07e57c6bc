// A set of field paths, as structured-merge-diff's fieldpath.Set: a tree whose nodes hold the
// elements that are members at that level and the child sets below. A path can be a member
// and have children (a map a manager created and some of its fields).
import { comparePathElements, elementKey, type Path, type PathElement } from "./path-element.js";

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

export class FieldSet {
  // Keyed by the element's FieldsV1 key, which is canonical.
  readonly #members = new Map<string, PathElement>();
  readonly #children = new Map<string, Child>();

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds `path` (the empty path is not a member of anything and is ignored). */
  insert(path: Path): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.#childFor(path[i]);
    const last = path[path.length - 1];
    node.#members.set(elementKey(last), last);
  }

  /** Adds an element as a member of this level. */
  insertMember(pe: PathElement): void {
    this.#members.set(elementKey(pe), pe);
  }

  /** The child set below `pe`, created empty if missing (the caller must not leave it empty). */
  descend(pe: PathElement): FieldSet {
    return this.#childFor(pe);
  }

  /** Adds every path of `set` below `pe`. */
  addUnder(pe: PathElement, set: FieldSet): void {
    if (!set.isEmpty()) this.#childFor(pe).#addAll(set);
  }

  #childFor(pe: PathElement): FieldSet {
    const k = elementKey(pe);
    let c = this.#children.get(k);
    if (!c) {
      c = { pe, set: new FieldSet() };
      this.#children.set(k, c);
    }
    return c.set;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.child(path[i]);
    return node ? node.hasMember(path[path.length - 1]) : false;
  }

  hasMember(pe: PathElement): boolean {
    return this.#members.has(elementKey(pe));
  }

  /** The set below `pe` (paths relative to it), or undefined when none. */
  child(pe: PathElement): FieldSet | undefined {
    return this.#children.get(elementKey(pe))?.set;
  }

  isEmpty(): boolean {
    return this.#members.size === 0 && this.#children.size === 0;
  }

  /** Members of this level, sorted. */
  members(): PathElement[] {
    return [...this.#members.values()].sort(comparePathElements);
  }

  /** Child sets of this level, sorted by element. */
  children(): { pe: PathElement; set: FieldSet }[] {
    return [...this.#children.values()].sort((a, b) => comparePathElements(a.pe, b.pe));
  }

  union(other: FieldSet): FieldSet {
    const out = this.clone();
    out.#addAll(other);
    return out;
  }

  #addAll(other: FieldSet): void {
    for (const [k, pe] of other.#members) this.#members.set(k, pe);
    for (const [k, c] of other.#children) {
      const mine = this.#children.get(k);
      if (mine) mine.set.#addAll(c.set);
      else this.#children.set(k, { pe: c.pe, set: c.set.clone() });
    }
  }

  /** Paths of this set that are not in `other` (exact paths: a member of `other` keeps its children here). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.#members) if (!other.#members.has(k)) out.#members.set(k, pe);
    for (const [k, c] of this.#children) {
      const o = other.#children.get(k);
      const diff = o ? c.set.difference(o.set) : c.set.clone();
      if (!diff.isEmpty()) out.#children.set(k, { pe: c.pe, set: diff });
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.#members) if (other.#members.has(k)) out.#members.set(k, pe);
    for (const [k, c] of this.#children) {
      const o = other.#children.get(k);
      if (!o) continue;
      const both = c.set.intersection(o.set);
      if (!both.isEmpty()) out.#children.set(k, { pe: c.pe, set: both });
    }
    return out;
  }

  /** This set without every path under a top-level element for which `drop` holds. */
  withoutTopLevel(drop: (pe: PathElement) => boolean): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.#members) if (!drop(pe)) out.#members.set(k, pe);
    for (const [k, c] of this.#children)
      if (!drop(c.pe)) out.#children.set(k, { pe: c.pe, set: c.set.clone() });
    return out;
  }

  clone(): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.#members) out.#members.set(k, pe);
    for (const [k, c] of this.#children) out.#children.set(k, { pe: c.pe, set: c.set.clone() });
    return out;
  }

  /** Every path, in fieldpath.Set.Iterate's order: this level's members, then each child's. */
  paths(prefix: Path = []): Path[] {
    const out: Path[] = [];
    for (const pe of this.members()) out.push([...prefix, pe]);
    for (const c of this.children()) out.push(...c.set.paths([...prefix, c.pe]));
    return out;
  }

  equals(other: FieldSet): boolean {
    if (this.#members.size !== other.#members.size || this.#children.size !== other.#children.size)
      return false;
    for (const k of this.#members.keys()) if (!other.#members.has(k)) return false;
    for (const [k, c] of this.#children) {
      const o = other.#children.get(k);
      if (!o || !c.set.equals(o.set)) return false;
    }
    return true;
  }
}
