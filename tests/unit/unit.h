/* The unit test groups, each defined in its own file. */
#ifndef GILK_UNIT_H
#define GILK_UNIT_H

#include <stddef.h>

struct CMUnitTest;
extern const struct CMUnitTest reloc_tests[], splice_tests[], symtab_tests[],
	image_tests[], cfg_tests[], histogram_tests[], live_tests[], gerr_tests[],
	exits_tests[], bench_tests[], textfacts_tests[], filter_tests[], arm64_tests[], switch_arm64_tests[],
	site_filter_tests[], payload_tests[], lineindex_tests[], orc_tests[], agg_tests[], intexpr_tests[],
	grow_tests[];
extern const size_t reloc_ntests, splice_ntests, symtab_ntests, image_ntests,
	cfg_ntests, histogram_ntests, live_ntests, gerr_ntests, exits_ntests,
	bench_ntests, textfacts_ntests, filter_ntests, arm64_ntests, switch_arm64_ntests,
	site_filter_ntests, payload_ntests, lineindex_ntests, orc_ntests, agg_ntests, intexpr_ntests,
	grow_ntests;

#endif
