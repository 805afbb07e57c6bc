// Authorization in the embedded API server: kube's RBAC, its bootstrap policy, aggregation and
// the guard against granting what one does not hold.
export { ClusterRoleAggregator } from "./aggregation.js";
export { type Attributes, requestAttributes } from "./attributes.js";
export { type AccessListener, Authorization, type AuthorizationMode } from "./authorization.js";
export { deferBootstrapPolicy, seedBootstrapPolicy } from "./bootstrap.js";
export { forbiddenError, forbiddenMessage } from "./forbidden.js";
export { type Decision, type ResolvedRules, rbacGroup, rbacStores, serviceAccountUser } from "./rbac.js";
export { type PolicyRule, ruleAllows } from "./rules.js";
