// Whether a schema, or any schema below it, declares CEL rules (`x-kubernetes-validations`):
// asked once per CRD schema to know whether its objects need the CEL library at all, and of each
// schema node the rule walk meets, to skip the subtrees that have nothing to evaluate.

const RULES = "x-kubernetes-validations";

const known = new WeakMap<object, boolean>();

/** Whether `schema` declares rules anywhere (remembered for it and every object below it). */
export function schemaHasRules(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return false;
  const answer = known.get(schema);
  if (answer !== undefined) return answer;
  rememberBelow(schema);
  return known.get(schema)!;
}

function childrenOf(x: object): object[] {
  const out: object[] = [];
  for (const v of Array.isArray(x) ? x : Object.values(x))
    if (typeof v === "object" && v !== null) out.push(v);
  return out;
}

interface Frame {
  node: object;
  children: object[];
  next: number;
  rules: boolean;
}

function frameOf(node: object): Frame {
  return {
    node,
    children: childrenOf(node),
    next: 0,
    rules: !Array.isArray(node) && Object.hasOwn(node, RULES),
  };
}

/**
 * Answers for `root` and everything below it in one post-order walk with an explicit stack: a
 * schema may nest 10 000 levels, and asking each node in turn to walk its own subtree would take
 * time quadratic in the depth. Objects met twice are walked once; a cycle (never in JSON) is cut.
 */
function rememberBelow(root: object): void {
  const stack: Frame[] = [frameOf(root)];
  const onPath = new Set<object>([root]);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next < top.children.length) {
      const child = top.children[top.next++]!;
      const answer = known.get(child);
      if (answer !== undefined) top.rules ||= answer;
      else if (!onPath.has(child)) {
        onPath.add(child);
        stack.push(frameOf(child));
      }
      continue;
    }
    stack.pop();
    onPath.delete(top.node);
    known.set(top.node, top.rules);
    if (top.rules && stack.length > 0) stack[stack.length - 1]!.rules = true;
  }
}
