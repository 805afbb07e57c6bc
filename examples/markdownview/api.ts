// The MarkdownView API (view.zoetrope.github.io/v1), as in the seed's kubebuilder training: a set
// of markdown files served by a viewer Deployment. Its status is a single word, as the seed has it.
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import { defineKind } from "controller-runtime/api";

export interface MarkdownViewSpec {
  /** The files to show: file name → markdown. `SUMMARY.md` is the table of contents. */
  markdowns: Record<string, string>;
  /** How many viewer Pods. Default: 1. */
  replicas?: number;
  /** The viewer's image. Default: `peaceiris/mdbook:latest`. */
  viewerImage?: string;
}

/** NotReady: no viewer is available; Available: some are; Healthy: all are. */
export type MarkdownViewStatus = "NotReady" | "Available" | "Healthy";

export interface MarkdownView {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: MarkdownViewSpec;
  status?: MarkdownViewStatus;
}

export const MarkdownView = defineKind<MarkdownView>({
  group: "view.zoetrope.github.io",
  version: "v1",
  kind: "MarkdownView",
});
