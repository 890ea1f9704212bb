# The CSV of perfex and pfmon (-x ,) in the output schema
# (docs/schema.md), read by column name: shared by the guest suites
# (tests/module, tests/hw), whose awk is busybox's.

# csv_rows FILE COLUMNS [KEY=VALUE...]: the COLUMNS (header names, comma
# separated) of each row of a -x, CSV file (perfex's, pfmon's: schema 3,
# docs/schema.md) whose KEY columns hold those VALUEs, comma separated, one
# row a line; FILE - reads standard input (csv_rows - ... <<<"$output").
# Fails on a column the header does not have, or a row before the header.
csv_rows() {
	local file=$1 columns=$2
	shift 2
	PFM_CSV_KEYS=$(printf '%s\n' "$@") awk -F, -v columns="$columns" '
		function need(name) {
			if (!(name in col)) {
				print "no column " name " in the CSV" > "/dev/stderr"
				bad = 1
				exit 2
			}
			return col[name]
		}
		BEGIN { nk = split(ENVIRON["PFM_CSV_KEYS"], kv, "\n") }
		$1 == "schema" {
			for (i = 1; i <= NF; i++) col[$i] = i
			nc = split(columns, c, ",")
			for (i = 1; i <= nc; i++) ci[i] = need(c[i])
			for (k = 1; k <= nk; k++) {
				eq = index(kv[k], "=")
				kc[k] = need(substr(kv[k], 1, eq - 1))
				kval[k] = substr(kv[k], eq + 1)
			}
			header = 1
			next
		}
		!header {
			print "a row before the CSV header: " $0 > "/dev/stderr"
			bad = 1
			exit 2
		}
		{
			for (k = 1; k <= nk; k++)
				if ($(kc[k]) != kval[k])
					next
			line = $(ci[1])
			for (i = 2; i <= nc; i++) line = line "," $(ci[i])
			print line
		}
		END { if (bad) exit 2 }' "$file"
}

# csv_cell FILE COLUMN KEY=VALUE...: the COLUMN of the one row of a -x,
# CSV file (csv_rows) whose KEY columns hold those VALUEs; fails unless
# exactly one row matches
csv_cell() {
	local rows
	rows=$(csv_rows "$@") || return 1
	if [ -z "$rows" ] || [ "$(wc -l <<<"$rows")" -ne 1 ]; then
		echo "csv_cell $*: $(grep -c . <<<"$rows") rows" >&2
		return 1
	fi
	echo "$rows"
}
