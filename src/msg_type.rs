//! `pb_type`, the kind of a ptlrpc message, as a value: the wire layer reads it from
//! `ptlrpc_body`, and errors name it, so it sits below both.

wire_enum! {
    /// `pb_type`: what kind of message this is.
    pub struct PtlrpcMsgType(u32) {
        /// `PTL_RPC_MSG_REQUEST`.
        const REQUEST = 4711, "PTL_RPC_MSG_REQUEST";
        /// `PTL_RPC_MSG_ERR`: a reply that carries only an error status.
        const ERR = 4712, "PTL_RPC_MSG_ERR";
        /// `PTL_RPC_MSG_REPLY`.
        const REPLY = 4713, "PTL_RPC_MSG_REPLY";
    }
}

impl PtlrpcMsgType {
    /// The kind of message this `pb_type` stands for, in a word: `"request"`, `"reply"`,
    /// `"error"`, or `"unknown"` for any other value. Errors name the type they found with it.
    pub const fn kind_word(self) -> &'static str {
        match self {
            PtlrpcMsgType::REQUEST => "request",
            PtlrpcMsgType::ERR => "error",
            PtlrpcMsgType::REPLY => "reply",
            _ => "unknown",
        }
    }
}
