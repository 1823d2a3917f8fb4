/* Runs every unit test group (cmocka). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "unit.h"

int main(void)
{
	int failed = 0;

	failed += _cmocka_run_group_tests("reloc", reloc_tests, reloc_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("splice", splice_tests, splice_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("textfacts", textfacts_tests, textfacts_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("cfg", cfg_tests, cfg_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("exits", exits_tests, exits_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("symtab", symtab_tests, symtab_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("image", image_tests, image_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("histogram", histogram_tests, histogram_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("payload", payload_tests, payload_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("live", live_tests, live_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("gerr", gerr_tests, gerr_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("bench", bench_tests, bench_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("filter", filter_tests, filter_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("site_filter", site_filter_tests, site_filter_ntests,
					  NULL, NULL);
	failed += _cmocka_run_group_tests("arm64", arm64_tests, arm64_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("switch_arm64", switch_arm64_tests, switch_arm64_ntests,
					  NULL, NULL);
	failed += _cmocka_run_group_tests("lineindex", lineindex_tests, lineindex_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("orc", orc_tests, orc_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("agg", agg_tests, agg_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("intexpr", intexpr_tests, intexpr_ntests, NULL, NULL);
	failed += _cmocka_run_group_tests("grow", grow_tests, grow_ntests, NULL, NULL);
	return failed ? 1 : 0;
}
