// Link-preview and crawler user agents: they fetch an image to unfurl or index it, not because a person
// looked at it, so their requests are served but not counted as views.
const PREVIEW_BOTS =
  /discordbot|twitterbot|slackbot|slack-imgproxy|facebookexternalhit|facebot|telegrambot|whatsapp|linkedinbot|skypeuripreview|pinterest(bot)?|redditbot|embedly|iframely|vkshare|mastodon|bluesky|cardyb|applebot|googlebot|google-inspectiontool|bingbot|bingpreview|yandex(bot|images)|baiduspider|duckduckbot|slurp|petalbot|ahrefsbot|semrushbot|mj12bot|bytespider|gptbot|claudebot/i;

export function isPreviewBot(userAgent: string | null | undefined): boolean {
  return !!userAgent && PREVIEW_BOTS.test(userAgent);
}
