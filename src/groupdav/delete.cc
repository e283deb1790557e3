// RFC 4918 §9.6 DELETE of a calendar object, a vCard, or a whole calendar
// or address book (with everything in it). Homes and principals stay.
#include "groupdav/props.h"

namespace nubo::groupdav {

http::Response HandleDelete(GContext& c) {
  const Target& t = c.target;
  if (!t.exists) return http::Response::Text(404, "no such collection or object\n");
  Status st;
  if (IsObject(t.kind)) {
    st = c.gw.DeleteObject(c.who(), *t.collection, t.name, ObjectConditionsOf(c.req));
  } else if (t.kind == Res::kInbox || t.kind == Res::kOutbox) {
    return http::Response::Text(403, "the schedule inbox and outbox cannot be deleted\n");
  } else if (IsStore(t.kind)) {
    st = c.gw.Delete(c.who(), *t.collection);
  } else {
    return http::Response::Text(403, "this collection cannot be deleted\n");
  }
  if (st.ok()) return http::Response::Empty(204);
  switch (st.code()) {
    case Code::kPreconditionFailed:
      return http::Response::Text(412, st.message() + "\n");
    case Code::kNotFound:
      return http::Response::Text(404, st.message() + "\n");
    case Code::kPermissionDenied:
      return http::Response::Text(403, st.message() + "\n");
    default:
      return http::Response::Text(500, "internal server error\n");
  }
}

}  // namespace nubo::groupdav
