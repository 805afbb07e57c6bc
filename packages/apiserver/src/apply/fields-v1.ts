// The FieldsV1 form of a field set, byte for byte as kube writes it: a JSON object whose keys are
// path elements (`f:`, `k:`, `v:`, `i:`) in element order, `{}` for a member without children,
// and `".": {}` first inside a node that is both a member and has children.
import { trampoline, type Walk } from "../object/trampoline.js";
import { FieldSet } from "./field-set.js";
import {
  comparePathElements,
  elementKey,
  FieldPathError,
  parseElementKey,
  type PathElement,
} from "./path-element.js";

export type FieldsV1 = { [key: string]: FieldsV1 };

export function toFieldsV1(set: FieldSet): FieldsV1 {
  // A trampoline: a field set is as deep as its object, which may nest 10 000 levels.
  return trampoline(emit(set, false));
}

function* emit(set: FieldSet, includeSelf: boolean): Walk<FieldsV1> {
  const out: FieldsV1 = {};
  if (includeSelf) out["."] = {};
  const members = set.members();
  const children = set.children();
  const entries: { pe: PathElement; member: boolean; child: FieldSet | undefined }[] = [];
  let mi = 0;
  let ci = 0;
  while (mi < members.length || ci < children.length) {
    const c =
      mi >= members.length
        ? 1
        : ci >= children.length
          ? -1
          : comparePathElements(members[mi], children[ci].pe);
    if (c < 0) entries.push({ pe: members[mi++], member: true, child: undefined });
    else if (c > 0) {
      entries.push({ pe: children[ci].pe, member: false, child: children[ci].set });
      ci++;
    } else {
      entries.push({ pe: members[mi++], member: true, child: children[ci++].set });
    }
  }
  for (const e of entries) out[elementKey(e.pe)] = e.child ? yield emit(e.child, e.member) : {};
  return out;
}

export class FieldsV1Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FieldsV1Error";
  }
}

/** Reads a FieldsV1 object; throws FieldsV1Error on anything kube would not decode. */
export function fromFieldsV1(value: unknown): FieldSet {
  const set = new FieldSet();
  if (value === undefined || value === null) return set;
  trampoline(read(value, set, ""));
  return set;
}

function* read(value: unknown, set: FieldSet, where: string): Walk<void> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new FieldsV1Error(`FieldsV1 at ${where || "the root"} must be an object`);
  }
  for (const [k, v] of Object.entries(value)) {
    if (k === ".") continue;
    let pe: PathElement;
    try {
      pe = parseElementKey(k);
    } catch (e) {
      if (e instanceof FieldPathError) throw new FieldsV1Error(e.message);
      throw e;
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      throw new FieldsV1Error(`FieldsV1 at ${where}${k} must be an object`);
    }
    let self = false;
    let children = false;
    for (const x in v) {
      if (x === ".") self = true;
      else children = true;
    }
    if (self || !children) set.insertMember(pe);
    if (children) yield read(v, set.descend(pe), `${where}${k}/`);
  }
}
