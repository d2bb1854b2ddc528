// SPDX-License-Identifier: MIT
/* A validation's row as text (bench_validate.h): one line per test (QPs,
 * figure, spread, status, the history's comparison), the profile's reasons,
 * the verdict; with full, each test's perftest-style report first. */
#include <string.h>

#include "bench_text.h"
#include "bench_validate.h"

static bool is_null(struct json_object *o, const char *k)
{
	struct json_object *v;
	return !json_object_object_get_ex(o, k, &v) || !v;
}

/* "-8.1% vs 422.00 (noise 5.0%)", "first run" or "not recorded". */
static void history_words(struct json_object *to, char *buf, size_t size, bool *drop)
{
	struct json_object *h = json_object_object_get(to, "history");
	*drop = false;
	if (!h) {
		snprintf(buf, size, "%s",
			 is_null(to, "figure") ? "" : "no previous run for this VF, test and peer");
		return;
	}
	*drop = !strcmp(text_jstr(h, "flag") ?: "", "drop");
	snprintf(buf, size, "%s%+.1f%% vs %.2f %s (noise %.1f%%)", *drop ? "DROP " : "",
		 text_jnum(h, "change_pct"), text_jnum(h, "previous"), text_jstr(to, "unit") ?: "",
		 text_jnum(h, "noise_pct"));
}

static void test_line(struct text *out, struct json_object *to)
{
	struct json_object *prof = json_object_object_get(to, "profile");
	const char *status = text_jstr(to, "status") ?: "?", *test = text_jstr(to, "test") ?: "?";
	char qps[32], fig[48], spread[16], hist[120];
	bool drop;
	if (is_null(prof, "tx_depth"))
		snprintf(qps, sizeof(qps), "%lld", (long long)text_jint(prof, "qps"));
	else
		snprintf(qps, sizeof(qps), "%lld x %lld", (long long)text_jint(prof, "qps"),
			 (long long)text_jint(prof, "tx_depth"));
	bool lat = !strcmp(text_jstr(to, "unit") ?: "", "us");
	if (is_null(to, "figure"))
		snprintf(fig, sizeof(fig), "-");
	else if (lat)
		snprintf(fig, sizeof(fig), "%.3f us typical", text_jnum(to, "figure"));
	else
		snprintf(fig, sizeof(fig), "%.2f Gb/s", text_jnum(to, "figure"));
	if (is_null(to, "spread"))
		snprintf(spread, sizeof(spread), "-");
	else
		snprintf(spread, sizeof(spread), "%.1f%%", 100 * text_jnum(to, "spread"));
	history_words(to, hist, sizeof(hist), &drop);
	/* A latency not judged passes without a threshold: say so. */
	if (lat && !strcmp(status, "PASS") && !text_jbool(to, "judged"))
		status = "-";
	bool bad = !strcmp(status, "FAIL") || !strcmp(status, "ERROR") ||
		   !strcmp(status, "impossible");
	enum text_role role = bad					? TEXT_ERROR
			      : drop || !strcmp(status, "peer-limited") ? TEXT_WARNING
			      : !strcmp(status, "PASS")			? TEXT_OK
									: TEXT_NORMAL;
	if (!strcmp(status, "ERROR"))
		text_add(out, role, "  %-10s %-9s ERROR  %s", test, qps,
			 text_jstr(to, "error") ?: "");
	else
		text_add(out, role, "  %-10s %-9s %-18s %-7s %-6s %s", test, qps, fig, spread,
			 status, hist);
}

static void title(struct text *out, struct json_object *row)
{
	struct json_object *d = json_object_object_get(row, "device");
	char place[160] = "";
	if (!is_null(d, "pf"))
		snprintf(place, sizeof(place), " (vf%lld of %s%s%s)", (long long)text_jint(d, "vf"),
			 text_jstr(d, "pf"), is_null(d, "netdev") ? "" : ", ",
			 text_jstr(d, "netdev") ?: "");
	text_add(out, TEXT_HEADING, "Validation of %s %s%s, %s, peer %s",
		 text_jstr(row, "vf_bdf") ?: "-", text_jstr(d, "ibdev") ?: "-", place,
		 text_jstr(d, "rate") ?: "rate unknown", text_jstr(row, "peer") ?: "?");
	text_add(out, TEXT_HEADING, "  %-10s %-9s %-18s %-7s %-6s %s", "test", "QPs x TX", "figure",
		 "spread", "status", "history");
}

static void reasons(struct text *out, struct json_object *tests)
{
	for (size_t i = 0; tests && i < json_object_array_length(tests); i++) {
		struct json_object *to = json_object_array_get_idx(tests, i);
		struct json_object *prof = json_object_object_get(to, "profile");
		struct json_object *v = json_object_object_get(to, "verdict");
		const char *test = text_jstr(to, "test") ?: "?";
		if (!strcmp(text_jstr(prof, "chosen_by") ?: "", "operator"))
			text_add(out, TEXT_NORMAL, "  %s: QPs and depth as given (profile: %s)",
				 test, text_jstr(prof, "why") ?: "");
		else if (!is_null(prof, "tx_depth"))
			text_add(out, TEXT_NORMAL, "  %s: %s", test, text_jstr(prof, "why") ?: "");
		if (v && text_jbool(v, "judged"))
			text_add(out, TEXT_NORMAL, "  %s verdict: %s", test,
				 text_jstr(v, "reason") ?: "");
	}
}

void bench_validate_text_row(struct text *out, struct json_object *row, bool full)
{
	struct json_object *tests = text_jarr(row, "tests");
	const char *status = text_jstr(row, "status") ?: "?";
	if (!tests) { /* a VF not run: the sweep's row */
		bench_text_vf_row(out, row);
		return;
	}
	for (size_t i = 0; full && i < json_object_array_length(tests); i++) {
		struct json_object *to = json_object_array_get_idx(tests, i);
		if (json_object_object_get(to, "sizes"))
			bench_text_report(out, to, false);
	}
	title(out, row);
	for (size_t i = 0; i < json_object_array_length(tests); i++)
		test_line(out, json_object_array_get_idx(tests, i));
	if (text_jstr(row, "stopped"))
		text_add(out, TEXT_WARNING, "  the other tests not run: %s",
			 text_jstr(row, "stopped"));
	reasons(out, tests);
	int64_t drops = text_jint(row, "history_drops");
	if (drops)
		text_add(out, TEXT_WARNING,
			 "  %lld figure(s) dropped beyond the noise since the last run "
			 "(max(5%%, 3x spread))",
			 (long long)drops);
	bool lat_judged = false;
	for (size_t i = 0; i < json_object_array_length(tests); i++)
		lat_judged |= !is_null(json_object_array_get_idx(tests, i), "max_lat_us");
	/* A server's word not authenticated (no --key): said with the verdict. */
	struct json_object *auth = json_object_object_get(row, "authenticated");
	bool open = auth && !json_object_get_boolean(auth);
	text_add(out, strcmp(status, "PASS") ? TEXT_ERROR : TEXT_OK, "%s%s VF %s: %s", status,
		 open ? " (unauthenticated peer)" : "", text_jstr(row, "vf_bdf") ?: "?",
		 bench_text_why(text_jstr(row, "why"))
			 ?: lat_judged
			    ? "bandwidth at its verdicts' threshold, latency within --max-lat"
			    : "bandwidth at its verdicts' threshold; latency reported, not "
			      "judged (--max-lat US to judge it)");
}

void bench_validate_text_row_full(struct text *out, struct json_object *row)
{
	bench_validate_text_row(out, row, true);
}

void bench_validate_text_row_short(struct text *out, struct json_object *row)
{
	bench_validate_text_row(out, row, false);
}
