// Compiling the CEL of admission configurations (webhook match conditions, admission policies):
// one environment with the Kubernetes libraries, a cache of programs by expression, and the
// variables each kind of expression may name, as kube declares them. Every program counts its
// runtime cost, as cel-go's does under kube's cost limits. A name nothing declares is
// refused when the configuration is written (references.ts), not when a request meets it.
import { celEnv } from "@bufbuild/cel";
import { stringsLibrary } from "./strings-ext.js";
import { authzLibrary } from "./authz.js";
import { kubernetesLibraries } from "./kubernetes-libs.js";
import type { Parsed } from "./ast.js";
import { parseCel } from "./optional-syntax.js";
import { undeclaredReference } from "./references.js";
import { planMetered } from "./runtime-cost.js";
import { rewriteInitialisers, typedObjectLibrary } from "./typed-objects.js";

export type Program = (ctx: Record<string, unknown>) => unknown;
/** A program, or its compile error in cel-go's words ("ERROR: <input>:1:2: ..."). */
export type Compiled = Program | { error: string };

const env = celEnv({ funcs: [...stringsLibrary, ...kubernetesLibraries, ...authzLibrary] });
/** A mutation's environment: kube's adds the patch types and `jsonpatch.escapeKey` (HasPatchTypes). */
const mutationEnv = celEnv({
  funcs: [...stringsLibrary, ...kubernetesLibraries, ...authzLibrary, ...typedObjectLibrary],
});

/** A compiler of expressions that may name `variables`, its results cached by expression. */
function expressionCompiler(
  variables: readonly string[],
  {
    environment = env,
    parsing = parseCel,
  }: { environment?: typeof env; parsing?: (source: string) => Parsed } = {},
): (expression: string) => Compiled {
  const declared = new Set(variables);
  const programs = new Map<string, Compiled>();
  return (expression) => {
    let p = programs.get(expression);
    if (!p) {
      try {
        const parsed = parsing(expression);
        const undeclared = undeclaredReference(parsed, expression, environment, declared);
        // Planned to count its cost as it runs: kube cancels an admission expression past its
        // per-call limit and stops a policy past its budget (runtime-cost.ts, admission-policy.ts).
        p = undeclared ? { error: `ERROR: ${undeclared}` } : planMetered(environment, parsed);
      } catch (e) {
        p = { error: `ERROR: ${(e as Error).message}` };
      }
      // Expressions come from stored configurations: a bounded set, but keep the cache bounded too.
      if (programs.size > 10_000) programs.clear();
      programs.set(expression, p);
    }
    return p;
  };
}

/** A webhook's match conditions (kube's admission plugin environment). */
export const compileWebhookExpression = expressionCompiler(["object", "oldObject", "request", "authorizer"]);

const POLICY_VARIABLES = ["object", "oldObject", "request", "params", "namespaceObject", "variables"];

/** A ValidatingAdmissionPolicy's expressions. */
export const compilePolicyExpression = expressionCompiler([...POLICY_VARIABLES, "authorizer"]);

/**
 * An admission policy's match conditions, when the policy is written: kube compiles them without
 * `variables` (validation.go's stateless compiler), so a condition naming them is refused.
 */
export const compilePolicyMatchCondition = expressionCompiler(
  POLICY_VARIABLES.filter((v) => v !== "variables").concat("authorizer"),
);

/**
 * A ValidatingAdmissionPolicy's messageExpressions: kube compiles them without `authorizer`
 * (HasAuthorizer: false in validation.go's validateMessageExpression and plugin.go's compilePolicy),
 * so a policy whose messageExpression names it is refused when written.
 */
export const compilePolicyMessageExpression = expressionCompiler(POLICY_VARIABLES);

/**
 * A MutatingAdmissionPolicy's mutations (applyConfiguration and jsonPatch expressions): the
 * policy's variables, with `Object{...}` and `JSONPatch{...}` initialisers and jsonpatch.escapeKey.
 */
export const compileMutationExpression = expressionCompiler([...POLICY_VARIABLES, "authorizer"], {
  environment: mutationEnv,
  parsing: (source) => rewriteInitialisers(parseCel(source), source),
});
