// npm's prepack for a workspace package (run in its folder): the project's LICENSE, and for the
// library the project's README, go into the tarball beside its dist/.
import { copyFileSync } from "node:fs";

const pkg = process.argv[2];
copyFileSync("../../LICENSE", "LICENSE");
if (pkg === "controller-runtime") copyFileSync("../../README.md", "README.md");
