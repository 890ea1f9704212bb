/* Error reporting for the library: it never prints, it records the last
 * failure's message so the front end can print it with its own prefix. */
#ifndef PX_ERROR_H
#define PX_ERROR_H

/* Record a message (printf-style) and return -err so callers can write
 * "return px_fail(EINVAL, ...)". err is a positive errno value. */
int px_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The message of the last px_fail() in this thread ("" when none). */
const char *px_last_error(void);

#endif
