// The site's one client script, bundled by scripts/build-assets.mjs (esbuild: one minified classic script,
// served as a content-hashed asset; the pages' strict CSP allows no inline script). Each module looks for its
// page's elements and does nothing elsewhere.
import { initCopyButtons } from "./copy";
import { initBulkBar } from "./files-bulk";
import { initFilesDrop } from "./files-drop";
import { initLightbox } from "./lightbox";
import { initMenu } from "./menu";
import { initNavState } from "./nav-state";
import { initPasskeyForms } from "./passkey-forms";
import { initPlaceholders } from "./placeholders";
import { initUpload } from "./upload";
import { setApiUrl } from "./api-loader";
import { initTypeahead } from "./typeahead";

// Read while the script runs: currentScript is null in any callback.
const thumbhashUrl = document.currentScript?.getAttribute("data-thumbhash") ?? null;
const webauthnUrl = document.currentScript?.getAttribute("data-webauthn") ?? null;
setApiUrl(document.currentScript?.getAttribute("data-api") ?? null);

initNavState();
initCopyButtons();
initMenu();
initBulkBar();
initPlaceholders(thumbhashUrl);
initLightbox();
initUpload();
initFilesDrop();
initPasskeyForms(webauthnUrl);
initTypeahead();
