// Public addresses of things, built from the configured BASE_URL / IMAGE_URL / CDN_URL / SITE_URL.
import { config } from "../../config/env";

/** {image_url}/<file_id>: the short link. */
export const fileUrl = (env: Env, fileId: string) => `${config(env).imageUrl}/${fileId}`;
export const thumbnailUrl = (env: Env, fileId: string) => `${config(env).imageUrl}/${fileId}/thumb`;
/** {cdn_url}/uploads/<date>/<file_id>/<filename>; each segment percent-encoded. */
export const cdnUrl = (env: Env, storeKey: string) => `${config(env).cdnUrl}/${storeKey.split("/").map(encodeURIComponent).join("/")}`;
export const albumUrl = (env: Env, albumId: string) => `${config(env).siteUrl}/a/${albumId}`;
export const filePageUrl = (env: Env, fileId: string) => `${config(env).siteUrl}/f/${fileId}`;
export const apiUrl = (env: Env, path: string) => `${config(env).baseUrl}${path}`;
