/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the parts of gilk_target.ko. */
#ifndef _GILK_TARGET_H
#define _GILK_TARGET_H

long gilk_target_evict(long n);
long gilk_target_pad(long n);
long gilk_target_kpsite(long n);
long gilk_target_kprobe(long on);
/* smplock.c: n + 1, counted with a lock prefix at +3 */
long gilk_target_smplock(long n);
/* cgoto.c: 0xa for 0, 0xb for 1, through a computed goto */
long gilk_target_cgoto(long n);
/* edge.c: n, from functions laid out for the checker's symbol bounds */
long gilk_target_edge_a(long n);
long gilk_target_edge_b(long n);
long gilk_target_endbr(long n);
void kpsite_exit(void);
/* optsite.c: 2n + 14 (3 for 0), with a kprobe the kernel optimizes */
long gilk_target_optsite(long n);
long gilk_target_optkprobe(long op);
void optsite_exit(void);
long gilk_target_flags(long n);
/* recurse.c: 1 + 2 + ... + n, n calls deep */
long gilk_target_recurse(long n);

/* holdlive.c: the next module to go live waits ms in its notifier */
long gilk_target_holdlive(long ms);
int holdlive_init(void);
void holdlive_exit(void);

/* park.c: /proc/gilk_target_park */
int park_init(void);
void park_exit(void);

/* timekeeping.c: /proc/gilk_target_tk */
long gilk_target_in_tk(long n);
int tk_init(void);
void tk_exit(void);

/* slowpage.c: /proc/gilk_target_slowpage */
int slowpage_init(void);
void slowpage_exit(void);

/* jumplabel.c: /proc/gilk_target_jl */
long gilk_target_jl(long n);
int jl_init(void);
void jl_exit(void);

#endif
