// Where things are: the repository root, whatever the current directory; and the app a bench starts, which is
// this checkout's unless BENCH_APP_ROOT names another (`npm run bench -- --against <commit>`: a worktree there).
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const appRoot = process.env.BENCH_APP_ROOT ? path.resolve(process.env.BENCH_APP_ROOT) : root;
