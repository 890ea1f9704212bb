/* What `-i` reports: the backends, the PMUs and the kernel settings that
 * decide what can be counted. */
#ifndef PX_SYSINFO_H
#define PX_SYSINFO_H

/* Call fn(key, value) for each fact, in a stable order. */
void px_sysinfo_foreach(void (*fn)(const char *key, const char *value, void *arg),
			void *arg);

#endif
