/* Every C API test case, one per line, in the order the runner runs them: PK_TEST(Name) is the
 * function test_Name (tests/api/c/harness.c) and the CTest test c_api.Name
 * (tests/api/c/CMakeLists.txt reads this file). No include guard: included once per use, with
 * PK_TEST defined. */

/* test_values.c */
PK_TEST(Status)
PK_TEST(Version)
PK_TEST(Types)
PK_TEST(DateTime)
PK_TEST(Guid)
PK_TEST(EntityKeys)
PK_TEST(EntityProperties)
PK_TEST(EntityClone)
PK_TEST(EntityJson)
/* test_keys.c */
PK_TEST(KeyStrategyParse)
PK_TEST(KeyStrategyCompute)
PK_TEST(Filters)
/* test_store.c */
PK_TEST(StoreOpen)
PK_TEST(StoreOptions)
PK_TEST(Busy)
PK_TEST(Corruption)
PK_TEST(IoError)
PK_TEST(RemoteLocations)
PK_TEST(Tables)
PK_TEST(OpenTableWithSchemes)
PK_TEST(Capabilities)
PK_TEST(ServiceProperties)
PK_TEST(ServiceStats)
PK_TEST(PermissionDenied)
PK_TEST(FlushAndAwait)
PK_TEST(TableInfo)
/* test_table.c */
PK_TEST(Writes)
PK_TEST(KeySchemes)
PK_TEST(PhysicalPartitions)
PK_TEST(Batches)
PK_TEST(BatchFailures)
/* test_query.c */
PK_TEST(QueryPaging)
PK_TEST(QueryConditions)
PK_TEST(QueryErrors)
PK_TEST(QueryShards)
PK_TEST(Statistics)
PK_TEST(Census)
PK_TEST(Throttled)
/* test_bulk.c */
PK_TEST(AccessPolicies)
PK_TEST(BulkWriter)
PK_TEST(BulkWriterBadLine)
PK_TEST(BulkWriterBadLineValidatingFirst)
PK_TEST(BulkWriterConflict)
PK_TEST(BulkWriterValidateFirst)
/* test_copy.c */
PK_TEST(CopyLocalToLocal)
PK_TEST(CopyInsertConflict)
PK_TEST(CopyResume)
PK_TEST(CopyRekey)
PK_TEST(VerifyCopy)
PK_TEST(CopyNullArguments)
/* test_changes.c */
PK_TEST(ChangeFeedModes)
PK_TEST(ChangeFeedStateAwaitSweep)
PK_TEST(ChangeFeedTrimmed)
PK_TEST(ChangeFeedSettings)
PK_TEST(ChangeFeedBadInput)
/* test_sync.c */
PK_TEST(SyncPushThenPull)
PK_TEST(SyncConflictReport)
PK_TEST(SyncConflictPolicies)
PK_TEST(SyncBadOptions)
/* test_null.c */
PK_TEST(NullHandles)
/* test_bytes.c */
PK_TEST(UnterminatedText)
