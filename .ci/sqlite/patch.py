#!/usr/bin/env python3
"""Patches better-sqlite3's bundled SQLite so that an erased subject's bytes leave the file without
a VACUUM (ADR 19, ADR 32). Two changes, each named among the build's compile options:

LIVINGMEMORY_ZERO_GAPS: under secure_delete, a b-tree page that a balance rebuilt or copied keeps no
old cell bytes in its unallocated gap.

SQLite zeroes freed cells and pages under secure_delete, but rebuildPage, editPage and
copyNodeContent lay a page out again without clearing the space between the cell pointer array
and the cell content area, so a deleted row's text can stay there. Zeroing that space is always
valid (SQLite never reads it).

LIVINGMEMORY_FTS5_OLDEST: an FTS5 merge drops delete markers whenever no older segment exists. SQLite
drops them only when the output level is the top one, so after an `optimize` whose segments all
sat on one level below empty higher levels, the merged segment kept each deleted row's terms as
markers (found by test/sqlite-page-gaps.int.test.ts: an erased user's marker word stayed).

Idempotent: a patched file is left as it is."""
import sys

path = sys.argv[1]
src = open(path, encoding='utf-8').read()
MARK = '/* livingmemory: zero a page gap */'
if '"LIVINGMEMORY_FTS5_OLDEST",' in src:
    print('sqlite3.c: already patched')
    sys.exit(0)
if MARK in src:
    sys.exit('sqlite3.c: patched by an older version of this script; reinstall better-sqlite3 (npm ci) first')

helper = MARK + '''
static void lmZeroGap(MemPage *pPg){
  if( pPg->pBt->btsFlags & BTS_FAST_SECURE ){
    u8 * const aData = pPg->aData;
    int iGap = pPg->cellOffset + 2*pPg->nCell;
    int iTop = get2byte(&aData[pPg->hdrOffset+5]);
    if( iTop==0 ) iTop = 65536;
    if( iTop>(int)pPg->pBt->usableSize ) iTop = (int)pPg->pBt->usableSize;
    if( iTop>iGap ) memset(&aData[iGap], 0, iTop-iGap);
  }
}

'''

def replace_once(text, old, new, what):
    count = text.count(old)
    if count != 1:
        sys.exit(f'sqlite3.c: expected one {what}, found {count}; the patch does not fit this SQLite')
    return text.replace(old, new)

# The helper goes right before rebuildPage.
src = replace_once(src, 'static int rebuildPage(\n', helper + 'static int rebuildPage(\n', 'rebuildPage definition')
# rebuildPage: after the new header is written.
src = replace_once(src,
    '  put2byte(&aData[hdr+5], pData - aData);\n  aData[hdr+7] = 0x00;\n  return SQLITE_OK;\n}',
    '  put2byte(&aData[hdr+5], pData - aData);\n  aData[hdr+7] = 0x00;\n  lmZeroGap(pPg);\n  return SQLITE_OK;\n}',
    'end of rebuildPage')
# editPage: its successful end (the debug check sits between the header write and the return).
src = replace_once(src,
    '#endif\n\n  return SQLITE_OK;\n editpage_fail:',
    '#endif\n\n  lmZeroGap(pPg);\n  return SQLITE_OK;\n editpage_fail:',
    'end of editPage')
# copyNodeContent: the destination page once it is initialised again.
src = replace_once(src,
    '    if( rc==SQLITE_OK ) rc = btreeComputeFreeSpace(pTo);\n    if( rc!=SQLITE_OK ){\n      *pRC = rc;\n      return;\n    }\n',
    '    if( rc==SQLITE_OK ) rc = btreeComputeFreeSpace(pTo);\n    if( rc!=SQLITE_OK ){\n      *pRC = rc;\n      return;\n    }\n    lmZeroGap(pTo);\n',
    'copyNodeContent initialisation')
# FTS5: the merge's output is the oldest segment when no level above it holds one.
src = replace_once(src,
    '  bOldest = (pLvlOut->nSeg==1 && pStruct->nLevel==iLvl+2);\n',
    '  bOldest = (pLvlOut->nSeg==1 && lmNoSegmentAbove(pStruct, iLvl+1));\n',
    'bOldest in fts5IndexMergeLevel')
src = replace_once(src,
    'static void fts5IndexMergeLevel(\n',
    '''/* livingmemory: no segment on a level above iLvl */
static int lmNoSegmentAbove(Fts5Structure *pStruct, int iLvl){
  int i;
  for(i=iLvl+1; i<pStruct->nLevel; i++){
    if( pStruct->aLevel[i].nSeg>0 ) return 0;
  }
  return 1;
}

static void fts5IndexMergeLevel(\n''',
    'fts5IndexMergeLevel definition')
# Named among the compile options, so the engine can tell a patched build (PRAGMA compile_options).
src = replace_once(src,
    'static const char * const sqlite3azCompileOpt[] = {\n',
    'static const char * const sqlite3azCompileOpt[] = {\n  "LIVINGMEMORY_FTS5_OLDEST",\n  "LIVINGMEMORY_ZERO_GAPS",\n',
    'compile option list')
open(path, 'w', encoding='utf-8').write(src)
print('sqlite3.c: patched (page gaps zeroed under secure_delete; FTS5 merges drop delete markers when oldest)')
