// RFC 6638 implicit scheduling between the accounts of this server.
//
// When an organizer stores an event with attendees, each attendee who is
// an account here (matched by the e-mail of a mailto: address, or by a
// principal URL) gets the iTIP REQUEST in their schedule inbox and the
// event in their calendar; attendees removed, or the event deleted, get a
// CANCEL and lose their copy. When an attendee changes their PARTSTAT, the
// organizer gets the REPLY in their inbox and their copy's ATTENDEE line
// is updated. Messages for addresses that are no account here are kept in
// the sender's schedule outbox (kind 4), where a mail gateway can pick
// them up later. Everything happens in the transaction of the write that
// caused it, so a delivery is never half done.
//
// Thread-safe: pure functions over the caller's transaction.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::groupware {

struct GroupwareOptions;

// The calendar user addresses of an account: "mailto:<its e-mail>" (when
// it has one) and its principal URL.
std::vector<std::string> AddressesOf(const meta::UserRow& u);

// The account a calendar user address names, if any.
Result<std::optional<meta::UserRow>> LocalUser(meta::ReadTxn& txn, std::string_view address);

// After `now` was stored in a calendar of `owner` (replacing `before`).
Status ScheduleAfterPut(meta::WriteTxn& txn, const GroupwareOptions& opt,
                        const meta::UserRow& owner, const std::optional<meta::DavObjectRow>& before,
                        const meta::DavObjectRow& now);
// After `before` was deleted from a calendar of `owner`.
Status ScheduleAfterDelete(meta::WriteTxn& txn, const GroupwareOptions& opt,
                           const meta::UserRow& owner, const meta::DavObjectRow& before);

// RFC 6638 §5: a free-busy request POSTed to `asker`'s outbox, answered
// per recipient.
struct FreeBusyAnswer {
  std::string recipient;       // as the request named it
  std::string request_status;  // "2.0;Success", "3.7;Invalid calendar user"
  std::string calendar_data;   // the VFREEBUSY reply, "" when none
};
Result<std::vector<FreeBusyAnswer>> ScheduleFreeBusy(meta::ReadTxn& txn, const meta::UserRow& asker,
                                                     std::string_view request);

}  // namespace nubo::groupware
