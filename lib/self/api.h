/* What libpx exports: the library is built with hidden visibility, and
 * the functions of its public headers (include/) are marked PX_API. */
#ifndef PX_API_H
#define PX_API_H

#define PX_API __attribute__((visibility("default")))

#endif
