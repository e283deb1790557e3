// The PostgreSQL connection helpers against a real (throwaway) server.
#include "meta/pg/pg_conn.h"

#include <gtest/gtest.h>

#include "meta/pg/pg_test_cluster.h"

namespace nubo::meta::pg {
namespace {

TEST(PgPlaceholders, NumberedAndBareOutsideQuotesAndComments) {
  int n = 0;
  auto r =
      Placeholders("SELECT ?, '?''?', \"a?\", ?3, ? -- ? here\n/* ? */ FROM t WHERE x = ?1", &n);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "SELECT $1, '?''?', \"a?\", $3, $4 -- ? here\n/* ? */ FROM t WHERE x = $1");
  EXPECT_EQ(n, 4);
  ASSERT_TRUE(Placeholders("SELECT 1", &n).ok());
  EXPECT_EQ(n, 0);
  // SQLite's rule: a bare ? follows the largest number seen so far.
  ASSERT_EQ(*Placeholders("?2 ? ?1 ?", &n), "$2 $3 $1 $4");
  EXPECT_EQ(n, 4);
  std::vector<bool> used;
  ASSERT_EQ(*Placeholders("?1, ?4", &n, &used), "$1, $4");
  EXPECT_EQ(used, (std::vector<bool>{true, false, false, true}));
}

TEST(PgPlaceholders, RefusesWhatItCannotRewrite) {
  int n = 0;
  EXPECT_EQ(Placeholders("SELECT ?0", &n).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Placeholders("SELECT ?65536", &n).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Placeholders("SELECT 'open", &n).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Placeholders("SELECT \"open", &n).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Placeholders("SELECT 1 /* open", &n).status().code(), Code::kInvalidArgument);
}

TEST(PgErrors, SqlStatesMapToStatusCodes) {
  EXPECT_EQ(PgError("40001", "m", "w").code(), Code::kAborted);
  EXPECT_EQ(PgError("40P01", "m", "w").code(), Code::kAborted);
  EXPECT_EQ(PgError("23505", "m", "w").code(), Code::kAlreadyExists);
  EXPECT_EQ(PgError("23503", "m", "w").code(), Code::kConflict);
  EXPECT_EQ(PgError("53100", "m", "w").code(), Code::kResourceExhausted);
  EXPECT_EQ(PgError("08006", "m", "w").code(), Code::kUnavailable);
  EXPECT_EQ(PgError("", "m", "w").code(), Code::kUnavailable);
  EXPECT_EQ(PgError("XX001", "m", "w").code(), Code::kCorruption);
  EXPECT_EQ(PgError("42601", "m\n", "w").ToString().find('\n'), std::string::npos);
  EXPECT_EQ(PgError("42601", "m", "w").code(), Code::kInternal);
}

class PgConnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = FreshTestDatabase();
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    info_ = *db;
    auto c = Conn::Open(info_);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    conn_ = std::move(c).value();
    ASSERT_TRUE(conn_
                    ->Exec("CREATE TABLE t (id bigint PRIMARY KEY, small smallint, mid int, "
                           "flag boolean, name text, data bytea, ratio double precision, "
                           "parent bigint REFERENCES t(id))")
                    .ok());
  }
  std::string info_;
  std::unique_ptr<Conn> conn_;
};

TEST_F(PgConnTest, EveryTypeRoundTrips) {
  const std::string name = "Grüße \"quoted\" 'and' \\ back";
  std::string blob("\0\1\2\xff", 4);
  const std::string empty;
  Blake3Digest d{};
  for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<uint8_t>(255 - i);
  {
    auto s = conn_->Prepare(
        "INSERT INTO t (id, small, mid, flag, name, data, ratio) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    s->Bind(1, int64_t{-(int64_t{1} << 40)}).Bind(2, -7).Bind(3, int64_t{-123456}).Bind(4, 1);
    s->Bind(5, name).BindBlob(6, blob).BindReal(7, 0.1);
    ASSERT_TRUE(s->Exec().ok()) << s->Exec().ToString();
    EXPECT_EQ(s->changes(), 1);
  }
  {
    auto s = conn_->Prepare("INSERT INTO t (id, name, data) VALUES (?, ?, ?)");
    ASSERT_TRUE(s.ok());
    s->Bind(1, 2).BindNull(2).BindBlob(3, empty);
    ASSERT_TRUE(s->Exec().ok());
  }
  {
    auto s = conn_->Prepare("INSERT INTO t (id, data) VALUES (?, ?)");
    ASSERT_TRUE(s.ok());
    s->Bind(1, 3).Bind(2, d);
    ASSERT_TRUE(s->Exec().ok());
  }
  auto s = conn_->Prepare("SELECT id, small, mid, flag, name, data, ratio FROM t ORDER BY id");
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(*s->Step());
  EXPECT_EQ(s->Int(0), -(int64_t{1} << 40));
  EXPECT_EQ(s->Int(1), -7);
  EXPECT_EQ(s->Int(2), -123456);
  EXPECT_EQ(s->Int(3), 1);
  EXPECT_EQ(s->Text(4), name);
  EXPECT_EQ(s->Blob(5), blob);
  EXPECT_DOUBLE_EQ(s->Real(6), 0.1);
  ASSERT_TRUE(*s->Step());
  EXPECT_EQ(s->Int(0), 2);
  // NULL numbers read as 0 (their value has no bytes to decode).
  EXPECT_TRUE(s->IsNull(1));
  EXPECT_EQ(s->Int(1), 0);
  EXPECT_DOUBLE_EQ(s->Real(6), 0);
  EXPECT_TRUE(s->IsNull(4));
  EXPECT_EQ(s->Text(4), "");
  EXPECT_FALSE(s->IsNull(5));  // an empty blob is a value, not NULL
  EXPECT_EQ(s->Blob(5), "");
  ASSERT_TRUE(*s->Step());
  EXPECT_EQ(s->Hash(5), d);
  // Out of range: as NULL.
  EXPECT_TRUE(s->IsNull(7));
  EXPECT_EQ(s->Int(7), 0);
  EXPECT_EQ(s->Text(-1), "");
  EXPECT_FALSE(*s->Step());
  EXPECT_FALSE(*s->Step());  // stays done
}

TEST_F(PgConnTest, NumericAndCountReadAsIntegers) {
  ASSERT_TRUE(conn_->Exec("INSERT INTO t (id) VALUES (4000000000000), (5000000000001), (-3)").ok());
  // SUM(bigint) is NUMERIC, COUNT is bigint, a comparison a boolean.
  auto s = conn_->Prepare("SELECT SUM(id), COUNT(*), MIN(id) < 0, SUM(id) * -1 FROM t");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE(*s->Step());
  EXPECT_EQ(s->Int(0), 9000000000000 - 2);
  EXPECT_EQ(s->Int(1), 3);
  EXPECT_EQ(s->Int(2), 1);
  EXPECT_EQ(s->Int(3), -(9000000000000 - 2));
}

TEST_F(PgConnTest, PreparedOnceReboundAndRun) {
  static const char* kInsert = "INSERT INTO t (id, name) VALUES (?1, 'n' || ?2)";
  for (int64_t i = 10; i < 20; ++i) {
    auto s = conn_->Prepare(kInsert);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    const std::string n = std::to_string(i);
    s->Bind(1, i).Bind(2, n);
    ASSERT_TRUE(s->Exec().ok());
  }
  auto s = conn_->Prepare("UPDATE t SET mid = ? WHERE id >= ?");
  ASSERT_TRUE(s.ok());
  s->Bind(1, 5).Bind(2, 15);
  ASSERT_TRUE(s->Exec().ok());
  EXPECT_EQ(s->changes(), 5);
  s->Reset();
  s->Bind(2, 18);
  ASSERT_TRUE(s->Exec().ok());  // bindings kept, one replaced
  EXPECT_EQ(s->changes(), 2);
  auto q = conn_->Prepare("SELECT name FROM t WHERE id = ?");
  ASSERT_TRUE(q.ok());
  q->Bind(1, 17);
  ASSERT_TRUE(*q->Step());
  EXPECT_EQ(q->View(0), "n17");
}

TEST_F(PgConnTest, NumbersAStatementSkipsMayStillBeBound) {
  // Shared binding code fills ?1..?3; this statement names only ?1 and ?3.
  auto s = conn_->Prepare("INSERT INTO t (id, mid) VALUES (?1, ?3)");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  s->Bind(1, 7).Bind(2, 99).Bind(3, 8);
  ASSERT_TRUE(s->Exec().ok()) << s->Exec().ToString();
  auto q = conn_->Prepare("SELECT mid FROM t WHERE id = 7");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(*q->Step());
  EXPECT_EQ(q->Int(0), 8);
}

TEST_F(PgConnTest, ServerErrorsBecomeTheirStatus) {
  ASSERT_TRUE(conn_->Exec("INSERT INTO t (id) VALUES (1)").ok());
  auto dup = conn_->Prepare("INSERT INTO t (id) VALUES (?)");
  ASSERT_TRUE(dup.ok());
  dup->Bind(1, 1);
  EXPECT_EQ(dup->Exec().code(), Code::kAlreadyExists);
  auto orphan = conn_->Prepare("INSERT INTO t (id, parent) VALUES (?, ?)");
  ASSERT_TRUE(orphan.ok());
  orphan->Bind(1, 2).Bind(2, 99);
  EXPECT_EQ(orphan->Exec().code(), Code::kConflict);
  EXPECT_EQ(conn_->Prepare("SELEC nothing").status().code(), Code::kInternal);
  // The connection is still usable after each error.
  auto ok = conn_->Prepare("SELECT count(*) FROM t");
  ASSERT_TRUE(ok.ok());
  ASSERT_TRUE(*ok->Step());
  EXPECT_EQ(ok->Int(0), 1);
}

TEST_F(PgConnTest, ALostUpdateIsRefusedAsRetryable) {
  ASSERT_TRUE(conn_->Exec("INSERT INTO t (id, mid) VALUES (1, 0)").ok());
  auto other = Conn::Open(info_);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(conn_->Run("BEGIN ISOLATION LEVEL REPEATABLE READ").ok());
  {
    auto read = conn_->Prepare("SELECT mid FROM t WHERE id = 1");  // takes the snapshot
    ASSERT_TRUE(read.ok());
    ASSERT_TRUE(*read->Step());
  }
  ASSERT_TRUE((*other)->Exec("UPDATE t SET mid = mid + 1 WHERE id = 1").ok());
  auto write = conn_->Prepare("UPDATE t SET mid = mid + 10 WHERE id = 1");
  ASSERT_TRUE(write.ok());
  EXPECT_EQ(write->Exec().code(), Code::kAborted);
  ASSERT_TRUE(conn_->Run("ROLLBACK").ok());
  auto s = conn_->Prepare("SELECT mid FROM t WHERE id = 1");
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(*s->Step());
  EXPECT_EQ(s->Int(0), 1);  // the other update stands alone
}

TEST(PgConn, NoServerIsUnavailable) {
  auto c = Conn::Open("host=/nonexistent/nubo port=5432 user=nubo dbname=x connect_timeout=2");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kUnavailable);
}

// A statement marked NUBO_SQL_PLAN_PER_CALL runs as the unnamed statement
// (planned for each execution's values), never as a prepared statement of
// the session; it binds, reads and fails like any other.
// SendWithNext: the statement runs before the next one, in its round trip,
// through every way a statement runs (prepared, planned per call, simple).
TEST_F(PgConnTest, AStatementSentWithTheNextRunsFirst) {
  ASSERT_TRUE(conn_->Exec("INSERT INTO t (id, name) VALUES (1, 'one')").ok());
  // SAVEPOINT fails outside a transaction block: it tells whether BEGIN ran.
  static const char* kPrepared = "SELECT name FROM t WHERE id = ?";
  static const char* kPerCall = NUBO_SQL_PLAN_PER_CALL "SELECT name FROM t WHERE id = ?";
  for (const char* sql : {kPrepared, kPerCall}) {
    for (int round = 0; round < 2; ++round) {  // the second time the statement is cached
      conn_->SendWithNext("BEGIN");
      auto s = conn_->Prepare(sql);
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      s->Bind(1, 1);
      auto row = s->Step();
      ASSERT_TRUE(row.ok()) << row.status().ToString();
      ASSERT_TRUE(*row);
      EXPECT_EQ(s->View(0), "one");
      s->Reset();
      EXPECT_FALSE(conn_->DropUnsent());  // sent
      EXPECT_TRUE(conn_->Exec("SAVEPOINT p").ok()) << sql;
      ASSERT_TRUE(conn_->Exec("ROLLBACK").ok());
    }
  }
  conn_->SendWithNext("BEGIN");
  EXPECT_TRUE(conn_->Exec("SAVEPOINT p").ok());  // the simple protocol: one message
  ASSERT_TRUE(conn_->Exec("ROLLBACK").ok());
  // Dropped: nothing ran.
  conn_->SendWithNext("BEGIN");
  EXPECT_TRUE(conn_->DropUnsent());
  EXPECT_FALSE(conn_->Exec("SAVEPOINT p").ok());
  // Its error is the statement's, and the connection stays usable.
  conn_->SendWithNext("SELECT 1/0");
  auto s = conn_->Prepare(kPrepared);
  ASSERT_TRUE(s.ok());
  s->Bind(1, 1);
  auto failed = s->Step();
  EXPECT_EQ(failed.status().code(), Code::kInvalidArgument) << failed.status().ToString();
  s->Reset();
  auto again = s->Step();
  ASSERT_TRUE(again.ok() && *again) << again.status().ToString();
  EXPECT_EQ(s->View(0), "one");
}

TEST_F(PgConnTest, PlanPerCallStatementsAreNotPreparedAndRunAlike) {
  static constexpr const char* kPerCall =
      NUBO_SQL_PLAN_PER_CALL "SELECT id, name FROM t WHERE id >= ? AND name LIKE ?3 ORDER BY id";
  static constexpr const char* kPrepared = "SELECT count(*) FROM t WHERE id >= ?";
  ASSERT_TRUE(
      conn_->Exec("INSERT INTO t (id, name) VALUES (1, 'a%b'), (2, 'axb'), (3, 'a%c')").ok());
  const std::string pattern = "a\\%%";
  for (int round = 0; round < 7; ++round) {  // past the five runs after which plans settle
    auto s = conn_->Prepare(kPerCall);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    s->Bind(1, 2).Bind(2, int64_t{0}).Bind(3, pattern);
    ASSERT_TRUE(*s->Step());
    EXPECT_EQ(s->Int(0), 3);
    EXPECT_EQ(s->Text(1), "a%c");
    EXPECT_FALSE(*s->Step());
    auto p = conn_->Prepare(kPrepared);
    ASSERT_TRUE(p.ok());
    p->Bind(1, 0);
    ASSERT_TRUE(*p->Step());
    EXPECT_EQ(p->Int(0), 3);
  }
  auto q = conn_->Prepare("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE ?");
  ASSERT_TRUE(q.ok());
  const std::string per_call = "%plan per call%", prepared = "%count(*) FROM t%";
  q->Bind(1, per_call);
  ASSERT_TRUE(*q->Step());
  EXPECT_EQ(q->Int(0), 0);
  q->Reset();
  q->Bind(1, prepared);
  ASSERT_TRUE(*q->Step());
  EXPECT_EQ(q->Int(0), 1);
  q->Reset();
  auto bad = conn_->Prepare(NUBO_SQL_PLAN_PER_CALL "SELECT nothing FROM t WHERE id = ?");
  ASSERT_TRUE(bad.ok());  // nothing reaches the server before it runs
  bad->Bind(1, 1);
  auto st = bad->Step();
  EXPECT_EQ(st.status().code(), Code::kInternal);
  EXPECT_NE(st.status().ToString().find("nothing"), std::string::npos) << st.status().ToString();
}

}  // namespace
}  // namespace nubo::meta::pg
