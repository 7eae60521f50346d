#!/usr/bin/env bash
# How store.tar.gz was made: by the partkv CLI of format 1 (the release before format 2, commit
# e290bfe), in an empty directory, then `tar czf store.tar.gz store` and one export per table.
# Kept to document the fixture; running it needs a format-1 build of `partkv` as $1.
set -euo pipefail
P=$1
S="--store $PWD/store"
here=$(cd "$(dirname "$0")" && pwd)
$P $S table create Orders --partitions 4
$P $S table create Devices --partitions 16 --pk 'hash-suffix(PartitionKey,deviceId,8)'
$P $S table create Single --partitions 1
$P $S table create Dropped
$P $S insert Orders '{"PartitionKey":"cust-1","RowKey":"o1","Item":"keyboard","Qty":2,"Big@odata.type":"Edm.Int64","Big":"9007199254740993","Price":12.5,"Paid":true,"When@odata.type":"Edm.DateTime","When":"2020-09-17T00:00:00.9999900Z","Id@odata.type":"Edm.Guid","Id":"a455c695-df98-5678-aaaa-81d3367e5a34","Raw@odata.type":"Edm.Binary","Raw":"AAEC/w=="}'
$P $S import Orders "$here/rows.jsonl"
$P $S import Single "$here/rows.jsonl"
$P $S insert Orders '{"PartitionKey":"Zürich","RowKey":"1","v":"unicode"}'
$P $S insert Dropped '{"PartitionKey":"gone","RowKey":"1"}'
$P $S table drop Dropped
$P $S upsert Orders '{"PartitionKey":"p1","RowKey":"r001","n":1001}'
for i in 1 2 3; do
  $P $S insert Devices "{\"PartitionKey\":\"dev\",\"deviceId\":\"d$i\",\"RowKey\":\"t$i\",\"v\":$i}"
done
$P $S table create Orders2
for t in Orders Devices Single Orders2; do $P $S export $t > "$t.jsonl"; done
