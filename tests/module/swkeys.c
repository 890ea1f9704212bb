/* swkeys: hold one counting perf event of each software event type on
 * this thread, and sleep until killed (scripts/vm/init starts it before
 * the suite).
 *
 * The kernel branches to its software-event code through static keys,
 * patched live (text_poke_bp: an int3 first, then the jump) each time
 * the number of events of a type goes from 0 to 1 or back; the suite
 * creates and frees thousands of them (create/close cycles, fuzzing).
 * In the TCG guest a CPU once executed the int3 of such a patch after
 * it was complete, in do_user_addr_fault's page-fault branch: "int3",
 * "Fatal exception in interrupt", the guest gone.  With these events
 * held, the keys stay on and the kernel text is not patched.  They count
 * this sleeping thread only. */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	static const unsigned long long sw[] = {
		PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_CONTEXT_SWITCHES,
		PERF_COUNT_SW_CPU_MIGRATIONS, PERF_COUNT_SW_PAGE_FAULTS_MIN,
		PERF_COUNT_SW_PAGE_FAULTS_MAJ, PERF_COUNT_SW_ALIGNMENT_FAULTS,
		PERF_COUNT_SW_EMULATION_FAULTS,
	};
	int held = 0;

	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = sw[i];
		if (syscall(SYS_perf_event_open, &a, 0, -1, -1, 0) >= 0)
			held++;
		else
			perror("swkeys: perf_event_open");
	}
	fprintf(stderr, "swkeys: holding %d software events\n", held);
	for (;;)
		pause();
}
