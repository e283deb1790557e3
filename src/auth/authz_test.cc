#include "auth/authz.h"

#include <gtest/gtest.h>

#include "auth/test_support.h"
#include "util/time.h"

namespace nubo::authz {
namespace {

using meta::NodeRow;

Perms P(std::initializer_list<Action> a) { return Perms::Of(a); }

TEST(Authz, RolesAllowWhatTheySay) {
  const Perms view = P({Action::kRead, Action::kList});
  const Perms edit =
      P({Action::kRead, Action::kList, Action::kCreate, Action::kModify, Action::kDelete});
  EXPECT_EQ(RolePerms(Role::kViewer, false, false), view);
  EXPECT_EQ(RolePerms(Role::kEditor, false, false), edit);
  EXPECT_EQ(RolePerms(Role::kManager, false, false), Perms::AllNode());
  EXPECT_EQ(RolePerms(Role::kViewer, true, false),
            P({Action::kRead, Action::kList, Action::kShare}));
  // On the granted node itself nothing deletes (or renames) it.
  EXPECT_EQ(RolePerms(Role::kEditor, false, true), edit.Without(Action::kDelete));
  EXPECT_FALSE(RolePerms(Role::kManager, false, true).Has(Action::kDelete));
  EXPECT_EQ(RoleOf(Perms::AllNode()), Role::kManager);
  EXPECT_EQ(RoleOf(RolePerms(Role::kEditor, true, true)), Role::kEditor);
  EXPECT_EQ(RoleOf(RolePerms(Role::kViewer, true, false)), Role::kViewer);
  EXPECT_EQ(RoleOf(P({Action::kList})), std::nullopt);
  EXPECT_EQ(ParseRole("editor"), Role::kEditor);
  EXPECT_EQ(ParseRole("Editor"), std::nullopt);
  EXPECT_EQ(ParseRole("owner"), std::nullopt);
}

// Alice's drive: root / shared / inner / file, and root / private. Bob
// reaches "shared" through grants; Carol through a nested group.
class CheckerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status st = db_.store->Write([&](meta::WriteTxn& t) -> Status {
      for (auto [row, name] :
           {std::pair{&alice_, "alice"}, std::pair{&bob_, "bob"}, std::pair{&carol_, "carol"}}) {
        row->public_id = std::string("u-") + name;
        row->username = row->display_name = name;
        row->role = "user";
        NUBO_RETURN_IF_ERROR(t.InsertUser(*row));
      }
      meta::DriveRow d;
      d.public_id = "d";
      d.kind = "personal";
      d.name = "Personal";
      d.owner_id = alice_.id;
      NUBO_RETURN_IF_ERROR(t.InsertDrive(d));
      auto add = [&](NodeRow& n, const char* name, std::optional<int64_t> parent) -> Status {
        n.public_id = std::string("n-") + name;
        n.drive_id = d.id;
        n.parent_id = parent;
        n.name = n.name_key = n.sort_key = name;
        n.mime = "inode/directory";
        return t.InsertNode(n);
      };
      NUBO_RETURN_IF_ERROR(add(root_, "root", std::nullopt));
      NUBO_RETURN_IF_ERROR(add(shared_, "shared", root_.id));
      NUBO_RETURN_IF_ERROR(add(inner_, "inner", shared_.id));
      NUBO_RETURN_IF_ERROR(add(private_, "private", root_.id));
      return Status::Ok();
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  void GrantTo(std::optional<int64_t> user, std::optional<int64_t> group, const NodeRow& n,
               Role role, std::optional<int64_t> expires = std::nullopt, bool reshare = false,
               std::optional<int64_t> maker = std::nullopt) {
    Status st = db_.store->Write([&](meta::WriteTxn& t) {
      meta::GrantRow g;
      g.public_id = "g" + std::to_string(++grants_);
      g.node_id = n.id;
      g.grantee_user = user;
      g.grantee_group = group;
      g.role = static_cast<int>(role);
      g.may_reshare = reshare;
      g.expires_at_ms = expires;
      g.created_by = maker ? *maker : alice_.id;
      g.created_at_ms = 1;
      return t.InsertGrant(g);
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
  }

  // The principal's permissions on `n` (nullopt: hidden). Asked twice: of
  // a fresh checker, and of one primed with every node of the tree (one
  // grant lookup for all, as a page of share-list entries is checked);
  // the two must agree.
  std::optional<Perms> On(const auth::Principal& who, const NodeRow& n) {
    std::optional<Perms> out[2];
    for (bool primed : {false, true}) {
      Status st = db_.store->Read([&](meta::ReadTxn& t) -> Status {
        Checker check(t, who);
        if (primed) {
          NUBO_RETURN_IF_ERROR(check.Prime({&private_, &inner_, &root_, &shared_, &n}));
        }
        auto p = check.On(n);
        if (p.ok()) {
          out[primed] = *p;
        } else {
          EXPECT_EQ(p.status().code(), Code::kNotFound);
          EXPECT_EQ(p.status().message(), NodeHidden().message());
        }
        return Status::Ok();
      });
      EXPECT_TRUE(st.ok()) << st.ToString();
    }
    EXPECT_EQ(out[0], out[1]) << "primed and unprimed decisions differ for " << n.name;
    return out[0];
  }

  auth::testing::TempMeta db_;
  meta::UserRow alice_, bob_, carol_;
  NodeRow root_, shared_, inner_, private_;
  int grants_ = 0;
};

TEST_F(CheckerTest, OwnerDecidesEverythingAndStrangersSeeNothing) {
  auto alice = auth::Principal::User(alice_.id, "alice");
  EXPECT_EQ(On(alice, inner_), Perms::AllNode());
  auto bob = auth::Principal::User(bob_.id, "bob");
  EXPECT_EQ(On(bob, inner_), std::nullopt);
  EXPECT_EQ(On(auth::Principal{}, inner_), std::nullopt);
}

TEST_F(CheckerTest, GrantsReachDownTheTreeAndTheStrongestWins) {
  auto bob = auth::Principal::User(bob_.id, "bob");
  GrantTo(bob_.id, std::nullopt, shared_, Role::kViewer);
  EXPECT_EQ(On(bob, shared_), P({Action::kRead, Action::kList}));
  EXPECT_EQ(On(bob, inner_), P({Action::kRead, Action::kList}));
  EXPECT_EQ(On(bob, private_), std::nullopt);
  EXPECT_EQ(On(bob, root_), std::nullopt);
  // An editor grant further down adds to the viewer grant above it, but
  // never the removal of the granted folder itself.
  GrantTo(bob_.id, std::nullopt, inner_, Role::kEditor);
  auto at_inner = On(bob, inner_);
  ASSERT_TRUE(at_inner);
  EXPECT_TRUE(at_inner->Has(Action::kCreate));
  EXPECT_FALSE(at_inner->Has(Action::kDelete));
  EXPECT_FALSE(at_inner->Has(Action::kShare));
  EXPECT_EQ(On(bob, shared_), P({Action::kRead, Action::kList}));
  // A credential without the files scope sees nothing, grants or not.
  auth::Principal calendar_only = bob;
  calendar_only.scopes = auth::kScopeGroupware;
  EXPECT_EQ(On(calendar_only, inner_), std::nullopt);
}

TEST_F(CheckerTest, NestedGroupsAndExpiry) {
  meta::GroupRow outer{0, "g-outer", "Outer", 1}, inner{0, "g-inner", "Inner", 1};
  Status st = db_.store->Write([&](meta::WriteTxn& t) -> Status {
    NUBO_RETURN_IF_ERROR(t.InsertGroup(outer));
    NUBO_RETURN_IF_ERROR(t.InsertGroup(inner));
    NUBO_RETURN_IF_ERROR(t.AddGroupMember(outer.id, true, inner.id));
    return t.AddGroupMember(inner.id, false, carol_.id);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto carol = auth::Principal::User(carol_.id, "carol");
  GrantTo(std::nullopt, outer.id, shared_, Role::kManager);
  auto p = On(carol, inner_);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, Perms::AllNode());
  EXPECT_FALSE(On(carol, shared_)->Has(Action::kDelete));
  // An expired grant grants nothing.
  auto bob = auth::Principal::User(bob_.id, "bob");
  GrantTo(bob_.id, std::nullopt, shared_, Role::kEditor, UnixMillis() - 1);
  EXPECT_EQ(On(bob, inner_), std::nullopt);
}

// A grant made by a recipient (a reshare) gives no more than its maker
// holds now, and nothing once the maker may no longer share.
TEST_F(CheckerTest, ResharesFollowTheirMaker) {
  auto carol = auth::Principal::User(carol_.id, "carol");
  GrantTo(bob_.id, std::nullopt, shared_, Role::kViewer, std::nullopt, /*reshare=*/true);
  GrantTo(carol_.id, std::nullopt, inner_, Role::kManager, std::nullopt, false, bob_.id);
  EXPECT_EQ(On(carol, inner_), RolePerms(Role::kViewer, false, true));  // clamped to Bob's viewer
  EXPECT_EQ(On(carol, shared_), std::nullopt);
  // Bob's grant goes: Carol's reshare reaches nothing.
  Status st = db_.store->Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto g, t.GetGrantByPublicId("g1"));
    return g ? t.DeleteGrant(g->id) : Status::NotFound("g1");
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(On(carol, inner_), std::nullopt);
}

}  // namespace
}  // namespace nubo::authz
