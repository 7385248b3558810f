// Mail delivery (src/mail/): the tries a mail gets, the waits between them, and when the cron takes a mail's
// message for lost.

export const MAIL = {
  /** The service's name as mails show it (the layout's header and footer). */
  serviceName: "imghost",
  /**
   * The wait before each further try, in seconds: try n+1 follows a failed try n by the n-th entry; none after the
   * last, and the mail is then failed for good. Six tries over about 1.7 hours ride out a short provider outage
   * while a verification or reset link (48 h, 1 h) is still worth sending.
   */
  retryDelaysSeconds: [30, 120, 600, 1800, 3600],
  /** A claimed try whose outcome is not recorded within this time (the worker died mid-send) is taken for lost. */
  claimSeconds: 120,
  /** A pending mail whose next message is this late lost it: the cron sends its next try again. */
  lostAfterSeconds: 600,
  /** Mails re-sent per cron run. */
  requeueBatch: 100,
  /** How many characters of a failed send's error are kept on the row. */
  errorChars: 300,
};
