/* SPDX-License-Identifier: MIT */
/*
 * perfring info - version, target, barrier backend, and the instruction
 * each barrier primitive compiles to in this build.  The table comes from
 * cli_insn_table.h, which the build generates (mk/insn.mk) from the
 * disassembly of tests/insn/probes.c compiled with this build's compiler
 * and flags: it is what the compiler emitted, not what we meant it to.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <perfring/barrier.h>
#include <perfring/common.h>

#include "../cli.h"
#include "cli_insn_table.h"

#define PFR__STR2(x) #x
#define PFR__STR(x) PFR__STR2(x)

/* The target this binary was compiled for, from the compiler's macros (not
 * uname: under qemu-user or a 32-bit userland the two differ). */
static const char *target_name(void)
{
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__aarch64__) && defined(__AARCH64EB__)
	return "aarch64_be";
#elif defined(__aarch64__)
	return "aarch64";
#elif defined(__arm__) && defined(__ARM_ARCH)
	return "armv" PFR__STR(__ARM_ARCH);
#elif defined(__powerpc64__) && defined(__BIG_ENDIAN__)
	return "ppc64";
#elif defined(__powerpc64__)
	return "ppc64le";
#elif defined(__s390x__)
	return "s390x";
#elif defined(__riscv) && __riscv_xlen == 64
	return "riscv64";
#elif defined(__i386__)
	return "i386";
#else
	return "unknown";
#endif
}

static const char *endianness(void)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return "big-endian";
#else
	return "little-endian";
#endif
}

static void help(void)
{
	printf("usage: perfring info [--json]\n\n"
	       "Prints perfring's version, the target it was built for, the\n"
	       "barrier backend in use and the instruction each barrier\n"
	       "primitive compiles to in this build (taken from the\n"
	       "disassembly of the build's own probe functions).\n\n"
	       "  --json    one JSON object instead of the table\n"
	       "  -h, --help\n");
}

static void print_json(void)
{
	const struct cli_insn_row *r;

	printf("{\"version\":");
	util_json_str(stdout, pfr_version());
	printf(",\"target\":");
	util_json_str(stdout, target_name());
	printf(",\"endianness\":");
	util_json_str(stdout, endianness());
	printf(",\"pointer_bits\":%u", (unsigned)(sizeof(void *) * 8));
	printf(",\"compiler\":");
	util_json_str(stdout, util_compiler());
	printf(",\"compiler_target\":");
	util_json_str(stdout, PFR_INSN_TARGET);
	printf(",\"backend\":");
	util_json_str(stdout, PFR_BARRIER_BACKEND);
	printf(",\"instructions_backend\":");
	util_json_str(stdout, PFR_INSN_BACKEND);
	if (PFR_INSN_NOTE[0]) {
		printf(",\"instructions_note\":");
		util_json_str(stdout, PFR_INSN_NOTE);
	}
	printf(",\"instructions\":[");
	for (r = cli_insn_table; r->primitive; r++) {
		printf("%s{\"primitive\":", r == cli_insn_table ? "" : ",");
		util_json_str(stdout, r->primitive);
		printf(",\"insns\":");
		util_json_str(stdout, r->insns);
		printf("}");
	}
	printf("]}\n");
}

static void print_text(void)
{
	const struct cli_insn_row *r;

	printf("perfring %s\n", pfr_version());
	printf("target:   %s (%s, %u-bit)\n", target_name(), endianness(),
	       (unsigned)(sizeof(void *) * 8));
	printf("compiler: %s (%s)\n", util_compiler(), PFR_INSN_TARGET);
	printf("backend:  %s\n", PFR_BARRIER_BACKEND);
	if (strcmp(PFR_INSN_BACKEND, PFR_BARRIER_BACKEND))
		printf("note:     the table below was compiled with the %s "
		       "backend\n",
		       PFR_INSN_BACKEND);
	if (PFR_INSN_NOTE[0]) {
		printf("instructions: not available (%s)\n", PFR_INSN_NOTE);
		return;
	}
	printf("\ninstructions in this build (from its disassembly; plain "
	       "loads and stores by\nmnemonic, \"-\" = compiler barrier "
	       "only):\n");
	for (r = cli_insn_table; r->primitive; r++)
		printf("  %-32s %s\n", r->primitive, r->insns);
}

int cli_cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int json = 0, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			help();
			return 0;
		default:
			return util_usage_error("info", "bad option");
		}
	}
	if (optind < argc)
		return util_usage_error("info", "unexpected argument '%s'",
					argv[optind]);
	if (json)
		print_json();
	else
		print_text();
	return 0;
}
