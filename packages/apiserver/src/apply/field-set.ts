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

  // The set operations below walk with explicit stacks: a field set is as deep as the object it
  // describes, which may nest 10 000 levels.

  #addAll(other: FieldSet): void {
    const stack: [FieldSet, FieldSet][] = [[this, other]];
    while (stack.length > 0) {
      const [into, from] = stack.pop()!;
      for (const [k, pe] of from.#members) into.#members.set(k, pe);
      for (const [k, c] of from.#children) {
        const mine = into.#children.get(k);
        if (mine) stack.push([mine.set, c.set]);
        else into.#children.set(k, { pe: c.pe, set: c.set.clone() });
      }
    }
  }

  /** Paths of this set that are not in `other` (exact paths: a member of `other` keeps its children here). */
  difference(other: FieldSet): FieldSet {
    return this.#combine(other, false);
  }

  intersection(other: FieldSet): FieldSet {
    return this.#combine(other, true);
  }

  // Difference (keep: members `other` lacks, children it lacks whole) or intersection (keep
  // what both have); empty child sets are dropped, deepest first.
  #combine(other: FieldSet, both: boolean): FieldSet {
    const root = new FieldSet();
    const visit: { mine: FieldSet; theirs: FieldSet; out: FieldSet }[] = [
      { mine: this, theirs: other, out: root },
    ];
    const order: { parent: FieldSet; k: string; out: FieldSet }[] = [];
    while (visit.length > 0) {
      const { mine, theirs, out } = visit.pop()!;
      for (const [k, pe] of mine.#members) {
        const inOther = theirs.#members.has(k);
        if (inOther === both) out.#members.set(k, pe);
      }
      for (const [k, c] of mine.#children) {
        const o = theirs.#children.get(k);
        if (!o && both) continue;
        if (!o) {
          out.#children.set(k, { pe: c.pe, set: c.set.clone() });
          continue;
        }
        const sub = new FieldSet();
        out.#children.set(k, { pe: c.pe, set: sub });
        order.push({ parent: out, k, out: sub });
        visit.push({ mine: c.set, theirs: o.set, out: sub });
      }
    }
    // Children were made before their own children were filled: prune the empty ones, deepest first.
    for (let i = order.length - 1; i >= 0; i--) {
      const { parent, k, out } = order[i];
      if (out.isEmpty()) parent.#children.delete(k);
    }
    return root;
  }

  /** This set without every path under a top-level element for which `drop` holds. */
  withoutTopLevel(drop: (pe: PathElement) => boolean): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.#members) if (!drop(pe)) out.#members.set(k, pe);
    for (const [k, c] of this.#children)
      if (!drop(c.pe)) out.#children.set(k, { pe: c.pe, set: c.set.clone() });
    return out;
  }

  /** This set without every path at or below each of `prefixes` (kube's nested reset fields). */
  withoutSubtrees(prefixes: readonly Path[]): FieldSet {
    if (prefixes.length === 0) return this;
    const out = this.clone();
    for (const p of prefixes) out.#removeSubtree(p);
    return out;
  }

  #removeSubtree(path: Path): void {
    if (path.length === 0) return;
    const chain: FieldSet[] = [this];
    for (let i = 0; i < path.length - 1; i++) {
      const next = chain[i].child(path[i]);
      if (!next) return;
      chain.push(next);
    }
    const last = elementKey(path[path.length - 1]);
    chain[chain.length - 1].#members.delete(last);
    chain[chain.length - 1].#children.delete(last);
    // No empty child sets left behind: they would read as members with nothing below.
    for (let i = chain.length - 1; i > 0 && chain[i].isEmpty(); i--)
      chain[i - 1].#children.delete(elementKey(path[i - 1]));
  }

  clone(): FieldSet {
    const root = new FieldSet();
    const stack: [FieldSet, FieldSet][] = [[this, root]];
    while (stack.length > 0) {
      const [from, into] = stack.pop()!;
      for (const [k, pe] of from.#members) into.#members.set(k, pe);
      for (const [k, c] of from.#children) {
        const copy = new FieldSet();
        into.#children.set(k, { pe: c.pe, set: copy });
        stack.push([c.set, copy]);
      }
    }
    return root;
  }

  /** Every path, in fieldpath.Set.Iterate's order: this level's members, then each child's. */
  paths(prefix: Path = []): Path[] {
    const out: Path[] = [];
    const stack: [FieldSet, Path][] = [[this, prefix]];
    while (stack.length > 0) {
      const [set, at] = stack.pop()!;
      for (const pe of set.members()) out.push([...at, pe]);
      const children = set.children();
      for (let i = children.length - 1; i >= 0; i--) stack.push([children[i].set, [...at, children[i].pe]]);
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    const stack: [FieldSet, FieldSet][] = [[this, other]];
    while (stack.length > 0) {
      const [a, b] = stack.pop()!;
      if (a.#members.size !== b.#members.size || a.#children.size !== b.#children.size) return false;
      for (const k of a.#members.keys()) if (!b.#members.has(k)) return false;
      for (const [k, c] of a.#children) {
        const o = b.#children.get(k);
        if (!o) return false;
        stack.push([c.set, o.set]);
      }
    }
    return true;
  }
}

/**
 * Where a walk is in a value (a path, as a chain), for inserting paths into sets without going
 * down from each set's root every time: a walk inserting every node of a value 10 000 levels
 * deep would otherwise cost the square of its depth. Each cursor remembers, per set, the node
 * below its path once it has been needed.
 */
export class FieldCursor {
  readonly #nodes = new Map<FieldSet, FieldSet>();

  constructor(
    readonly parent?: FieldCursor,
    readonly pe?: PathElement,
  ) {}

  /** The cursor one element further. */
  child(pe: PathElement): FieldCursor {
    return new FieldCursor(this, pe);
  }

  /** Adds this cursor's path to `root` (the empty path is ignored, as FieldSet.insert does). */
  insertInto(root: FieldSet): void {
    if (!this.parent || !this.pe) return;
    this.parent.#below(root).insertMember(this.pe);
  }

  /** The set below this path in `root`, made as needed from the nearest ancestor that has it. */
  #below(root: FieldSet): FieldSet {
    if (!this.parent) return root;
    const known = this.#nodes.get(root);
    if (known) return known;
    const chain: FieldCursor[] = [];
    let at: FieldCursor | undefined = this;
    let node = root;
    while (at?.parent) {
      const found = at.#nodes.get(root);
      if (found) {
        node = found;
        break;
      }
      chain.push(at);
      at = at.parent;
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      node = node.descend(chain[i].pe!);
      chain[i].#nodes.set(root, node);
    }
    return node;
  }
}
