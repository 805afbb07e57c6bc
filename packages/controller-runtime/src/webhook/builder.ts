// The core of `webhookManagedBy(mgr).for(Kind)...complete()`: collects a kind's defaulter,
// validator and converters, and registers them on a webhook server at controller-runtime's default
// paths. The manager-facing builder passes `mgr.getWebhookServer()` here.
import type { KubeObject, Kind } from "../api/index.js";
import { type CustomDefaulter, withDefaulter } from "./admission/defaulter.js";
import { type CustomValidator, withValidator } from "./admission/validator.js";
import type { AdmissionLogConstructor, AdmissionWebhookOptions } from "./admission/webhook.js";
import {
  type ConversionSpec,
  type ConversionWebhook,
  type GroupKind,
  isConversionWebhook,
  newConversionWebhook,
} from "./conversion/webhook.js";
import { convertPath, mutatePath, validatePath } from "./paths.js";
import type { WebhookServer } from "./server.js";

/** The builder was misused; `complete()` throws the first such mistake. */
export class WebhookBuilderError extends Error {
  override readonly name = "WebhookBuilderError";
  readonly code = "ERR_WEBHOOK_BUILDER";
}

export interface WebhookBuilder<T extends KubeObject> {
  /** A mutating webhook on `/mutate-<group>-<version>-<kind>` that runs `defaulter`. */
  withDefaulter(defaulter: CustomDefaulter<T>): WebhookBuilder<T>;
  /** A validating webhook on `/validate-<group>-<version>-<kind>` that runs `validator`. */
  withValidator(validator: CustomValidator<T>): WebhookBuilder<T>;
  /** Converters between the kind's versions, served on `/convert` (shared by every kind). */
  withConverter<Hub extends KubeObject>(spec: ConversionSpec<Hub>): WebhookBuilder<T>;
  /** Serves the defaulter on `path` instead of the default one. */
  withDefaulterCustomPath(path: string): WebhookBuilder<T>;
  /** Serves the validator on `path` instead of the default one. */
  withValidatorCustomPath(path: string): WebhookBuilder<T>;
  /**
   * Derives values from each HTTP request that the defaulter and validator read as `ctx.values`
   * (controller-runtime's `WithContextFunc`).
   */
  withContextFunc(fn: NonNullable<AdmissionWebhookOptions["contextFunc"]>): WebhookBuilder<T>;
  /** Makes each request's logger, `ctx.logger` (controller-runtime's `WithLogConstructor`). */
  withLogConstructor(fn: AdmissionLogConstructor): WebhookBuilder<T>;
  /**
   * Whether a throw of the defaulter or validator is answered as a 500 denial and counted
   * (default), or reaches the server (controller-runtime's `RecoverPanic`).
   */
  recoverPanic(recover: boolean): WebhookBuilder<T>;
  /** Registers what was configured; throws WebhookBuilderError or the server's path errors. */
  complete(): void;
}

/** Registers conversions on a server's `/convert` (controller-runtime's `conversion.Registry`). */
export interface ConverterRegistry {
  /** Registers how `kind` converts between its versions; throws when it is registered already. */
  registerConversion<Hub extends KubeObject>(kind: GroupKind, spec: ConversionSpec<Hub>): void;
  /** Whether `kind` has converters. */
  isConvertible(kind: GroupKind): boolean;
}

/** The conversion webhook on `server`'s `/convert`, registered there on first use. */
export function conversionWebhookOn(server: WebhookServer, what = "conversions"): ConversionWebhook {
  let hook = server.registered(convertPath);
  if (hook === undefined) {
    hook = newConversionWebhook();
    server.register(convertPath, hook);
  }
  if (!isConversionWebhook(hook)) {
    throw new WebhookBuilderError(
      `${what}: ${convertPath} is registered with a handler that is not a conversion webhook; ` +
        `register conversions on the one from newConversionWebhook()`,
    );
  }
  return hook;
}

/**
 * The converters of `server` (controller-runtime's `mgr.GetConverterRegistry()`): what
 * `withConverter` registers, served on `/convert`.
 */
export function converterRegistry(server: WebhookServer): ConverterRegistry {
  return {
    registerConversion: (kind, spec) => conversionWebhookOn(server).registerConversion(kind, spec),
    isConvertible: (kind) => {
      const hook = server.registered(convertPath);
      return hook !== undefined && isConversionWebhook(hook) && hook.isConvertible(kind);
    },
  };
}

/** Starts building the webhooks of `kind` on `server`. */
export function webhookFor<T extends KubeObject>(server: WebhookServer, kind: Kind<T>): WebhookBuilder<T> {
  let defaulter: CustomDefaulter<T> | undefined;
  let validator: CustomValidator<T> | undefined;
  let conversion: ConversionSpec | undefined;
  let defaulterPath: string | undefined;
  let validatorPath: string | undefined;
  let completed = false;
  const errors: string[] = [];
  const options: AdmissionWebhookOptions = {};

  const builder: WebhookBuilder<T> = {
    withDefaulter(d) {
      if (defaulter) errors.push("withDefaulter was called twice");
      defaulter = d;
      return builder;
    },
    withValidator(v) {
      if (validator) errors.push("withValidator was called twice");
      validator = v;
      return builder;
    },
    withConverter(spec) {
      if (conversion) errors.push("withConverter was called twice");
      conversion = spec as unknown as ConversionSpec;
      return builder;
    },
    withDefaulterCustomPath(path) {
      defaulterPath = path;
      return builder;
    },
    withValidatorCustomPath(path) {
      validatorPath = path;
      return builder;
    },
    withContextFunc(fn) {
      options.contextFunc = fn;
      return builder;
    },
    withLogConstructor(fn) {
      options.logConstructor = fn;
      return builder;
    },
    recoverPanic(recover) {
      options.recoverPanic = recover;
      return builder;
    },
    complete() {
      const what = `webhook for ${kind.kind} (${kind.apiVersion})`;
      if (completed) throw new WebhookBuilderError(`${what}: complete() was already called`);
      completed = true;
      if (errors.length > 0) throw new WebhookBuilderError(`${what}: ${errors[0]}`);
      if (defaulterPath !== undefined && !defaulter) {
        throw new WebhookBuilderError(`${what}: withDefaulterCustomPath needs withDefaulter`);
      }
      if (validatorPath !== undefined && !validator) {
        throw new WebhookBuilderError(`${what}: withValidatorCustomPath needs withValidator`);
      }
      if (!defaulter && !validator && !conversion) {
        throw new WebhookBuilderError(
          `${what}: nothing to register: call withDefaulter, withValidator or withConverter`,
        );
      }
      if (defaulter)
        server.register(defaulterPath ?? mutatePath(kind), withDefaulter(kind, defaulter, options));
      if (validator)
        server.register(validatorPath ?? validatePath(kind), withValidator(kind, validator, options));
      if (conversion) conversionWebhookOn(server, what).registerConversion(kind, conversion);
    },
  };
  return builder;
}
