#!/usr/bin/env node
// The `gligabao` command (npx gligabao …): the command line is TypeScript (src/cli), run through tsx.
import { register } from "tsx/esm/api";

register();
const { runFromProcess } = await import("../src/cli/process.ts");
process.exitCode = await runFromProcess();
