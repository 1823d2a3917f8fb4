#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "live.h"
int main(void){
  struct live lv; struct gerr e; struct splice_plan p; uint32_t id; uint64_t f; const struct ksym *s;
  if (live_open(&lv, NULL, &e)) { printf("open: %s\n", e.msg); return 1; }
  symtab_by_name(lv.k.syms, "__x64_sys_getppid", &s, 1); f = s->addr;
  uint64_t site = live_block_site(&lv, f);
  printf("fn %llx site %llx\n", (unsigned long long)f, (unsigned long long)site);
  if (live_plan(&lv, site, 0, &p, &e)) { printf("plan: %s\n", e.msg); return 1; }
  printf("mode %s len %u\n", splice_mode_name(p.mode), p.region.len);
  if (live_splice(&lv, &p, "count", "", &id, &e)) { printf("splice: %s\n", e.msg); return 1; }
  for (int i = 0; i < 10000; i++) syscall(SYS_getppid);
  struct gilk_splice_info in; live_info(&lv, id, &in, &e);
  printf("hits %llu\n", (unsigned long long)in.hits);
  if (live_unsplice(&lv, id, &e)) { printf("unsplice: %s\n", e.msg); return 1; }
  uint8_t b[32]; live_read_mem(&lv, site, b, p.region.len, &e);
  printf("restored %d\n", !memcmp(b, p.region.orig, p.region.len));
  return 0; }
