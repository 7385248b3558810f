// What `imghost upload <paths or globs...>` sends: each argument is a file, a folder (its images, in every
// subfolder) or a glob pattern (for shells that do not expand them, or quoted on purpose: "photos/**/*.png").
import { stat } from "node:fs/promises";
import path from "node:path";
import { glob, isDynamicPattern } from "tinyglobby";

/** The types the server accepts (decisions.md § Uploads), as file name endings: what a folder contributes. */
export const IMAGE_EXTENSIONS = ["png", "jpg", "jpeg", "gif", "webp", "avif", "bmp"];

/** @typedef {{ path: string; display: string; bytes: number }} UploadFile */
/** @typedef {{ argument: string; reason: string }} InputProblem */

/**
 * The files to upload, in the order given (a glob's or folder's matches sorted by name), each once; and the
 * arguments that named nothing.
 * @param {string[]} args
 * @returns {Promise<{ files: UploadFile[]; problems: InputProblem[] }>}
 */
export async function expandInputs(args) {
  /** @type {UploadFile[]} */
  const files = [];
  /** @type {InputProblem[]} */
  const problems = [];
  const seen = new Set();
  const add = async (/** @type {string} */ file) => {
    const absolute = path.resolve(file);
    if (seen.has(absolute)) return;
    seen.add(absolute);
    files.push({ path: absolute, display: file, bytes: (await stat(absolute)).size });
  };

  for (const argument of args) {
    const found = await statOrNull(argument);
    if (found?.isFile()) {
      // An existing name is taken as it is, even when it looks like a pattern ("shot [1].png").
      await add(argument);
    } else if (found?.isDirectory()) {
      const matches = await globSorted([`**/*.{${IMAGE_EXTENSIONS.join(",")}}`], argument);
      if (matches.length === 0) problems.push({ argument, reason: `the folder has no images (${IMAGE_EXTENSIONS.join(", ")})` });
      for (const match of matches) await add(path.join(argument, match));
    } else if (isDynamicPattern(argument)) {
      const matches = await globSorted([argument.split(path.sep).join("/")], undefined, path.isAbsolute(argument));
      if (matches.length === 0) problems.push({ argument, reason: "no file matches this pattern" });
      for (const match of matches) await add(match);
    } else {
      problems.push({ argument, reason: found ? "not a file or folder" : "no such file or folder" });
    }
  }
  return { files, problems };
}

async function statOrNull(/** @type {string} */ p) {
  try {
    return await stat(p);
  } catch {
    return null;
  }
}

/** Matching files (not folders), case-insensitive as image names often are (IMG_001.JPG), sorted by name. */
async function globSorted(/** @type {string[]} */ patterns, /** @type {string | undefined} */ cwd, absolute = false) {
  // An absolute pattern gets absolute names back (relative ones would climb out of the working folder: ../../x).
  const matches = await glob(patterns, { cwd, absolute, onlyFiles: true, caseSensitiveMatch: false, expandDirectories: false, dot: false });
  return matches.sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
}
