// SPDX-License-Identifier: MIT
// The project's own escrow for its local chains, with the public interface of the audited
// commerce-payments AuthCaptureEscrow deployed on Base: the same functions, PaymentInfo struct and
// hash, events and custom errors, so the exchange's Go code (package escrow) drives either one.
// It stands in for the audited contract on anvil; it is not a replacement for its audit.
//
// A payment is identified by the hash of its PaymentInfo (getHash). The operator authorizes it,
// which moves the payer's money into the operator's token store through a token collector; then
// captures it to the receiver (less a fee inside the payer's bounds), voids it back to the payer,
// or refunds what it captured. From the authorization expiry on, the payer alone takes back what
// was not captured (reclaim). charge is authorize and capture in one call.
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";

contract AuthCaptureEscrow is ReentrancyGuard {
    using SafeERC20 for IERC20;

    // The terms the payer agrees to; field order and types are part of the hash.
    struct PaymentInfo {
        address operator; // the only caller of authorize, charge, capture, void and refund
        address payer;
        address receiver;
        address token;
        uint120 maxAmount; // the most that may be authorized or charged
        uint48 preApprovalExpiry; // authorize and charge only before this time
        uint48 authorizationExpiry; // capture only before; reclaim only from this time on
        uint48 refundExpiry; // refund only before this time
        uint16 minFeeBps;
        uint16 maxFeeBps;
        address feeReceiver; // zero: the operator names it at capture
        uint256 salt; // tells apart payments with otherwise equal terms
    }

    struct PaymentState {
        bool hasCollectedPayment; // authorized or charged once: never again
        uint120 capturableAmount; // held in escrow, capturable
        uint120 refundableAmount; // captured, refundable
    }

    bytes32 public constant PAYMENT_INFO_TYPEHASH = keccak256(
        "PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)"
    );

    uint16 private constant ALL_BPS = 10_000;

    // The code every operator's token store runs (each store is a minimal clone of it).
    address public immutable tokenStoreImplementation;

    mapping(bytes32 paymentInfoHash => PaymentState state) public paymentState;

    event PaymentCharged(
        bytes32 indexed paymentInfoHash,
        PaymentInfo paymentInfo,
        uint256 amount,
        address tokenCollector,
        uint16 feeBps,
        address feeReceiver
    );
    event PaymentAuthorized(
        bytes32 indexed paymentInfoHash, PaymentInfo paymentInfo, uint256 amount, address tokenCollector
    );
    event PaymentCaptured(bytes32 indexed paymentInfoHash, uint256 amount, uint16 feeBps, address feeReceiver);
    event PaymentVoided(bytes32 indexed paymentInfoHash, uint256 amount);
    event PaymentReclaimed(bytes32 indexed paymentInfoHash, uint256 amount);
    event PaymentRefunded(bytes32 indexed paymentInfoHash, uint256 amount, address tokenCollector);
    event TokenStoreCreated(address indexed operator, address tokenStore);

    error InvalidSender(address sender, address expected);
    error ZeroAmount();
    error AmountOverflow(uint256 amount, uint256 limit);
    error ExceedsMaxAmount(uint256 amount, uint256 maxAmount);
    error AfterPreApprovalExpiry(uint48 timestamp, uint48 expiry);
    error InvalidExpiries(uint48 preApproval, uint48 authorization, uint48 refund);
    error FeeBpsOverflow(uint16 feeBps);
    error InvalidFeeBpsRange(uint16 minFeeBps, uint16 maxFeeBps);
    error FeeBpsOutOfRange(uint16 feeBps, uint16 minFeeBps, uint16 maxFeeBps);
    error ZeroFeeReceiver();
    error InvalidFeeReceiver(address attempted, address expected);
    error InvalidCollectorForOperation();
    error TokenCollectionFailed();
    error PaymentAlreadyCollected(bytes32 paymentInfoHash);
    error AfterAuthorizationExpiry(uint48 timestamp, uint48 expiry);
    error InsufficientAuthorization(bytes32 paymentInfoHash, uint256 authorizedAmount, uint256 requestedAmount);
    error ZeroAuthorization(bytes32 paymentInfoHash);
    error BeforeAuthorizationExpiry(uint48 timestamp, uint48 expiry);
    error AfterRefundExpiry(uint48 timestamp, uint48 expiry);
    error RefundExceedsCapture(uint256 refund, uint256 captured);

    constructor() {
        tokenStoreImplementation = address(new TokenStore(address(this)));
    }

    // Takes amount from the payer and pays it out at once (receiver and fee). Only the operator,
    // once per payment, before the pre-approval expiry, amount at most maxAmount.
    function charge(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        uint16 feeBps,
        address feeReceiver
    ) external nonReentrant {
        _requireSender(paymentInfo.operator);
        _requireAmount(amount);
        _checkTerms(paymentInfo, amount);
        _checkFee(paymentInfo, feeBps, feeReceiver);
        bytes32 hash = _collectOnce(paymentInfo, 0, amount);
        emit PaymentCharged(hash, paymentInfo, amount, tokenCollector, feeBps, feeReceiver);
        _collect(paymentInfo, amount, tokenCollector, collectorData, TokenCollector.CollectorType.Payment);
        _payOut(paymentInfo, amount, feeBps, feeReceiver);
    }

    // Takes amount from the payer into the operator's token store, capturable until the
    // authorization expiry. Only the operator, once per payment, before the pre-approval expiry,
    // amount at most maxAmount; the store must receive exactly amount.
    function authorize(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData
    ) external nonReentrant {
        _requireSender(paymentInfo.operator);
        _requireAmount(amount);
        _checkTerms(paymentInfo, amount);
        bytes32 hash = _collectOnce(paymentInfo, amount, 0);
        emit PaymentAuthorized(hash, paymentInfo, amount, tokenCollector);
        _collect(paymentInfo, amount, tokenCollector, collectorData, TokenCollector.CollectorType.Payment);
    }

    // Pays amount of what is held to the receiver, feeBps of it to the fee receiver. Only the
    // operator, before the authorization expiry, at most what is still capturable; may be called
    // again for the rest. What is captured becomes refundable.
    function capture(PaymentInfo calldata paymentInfo, uint256 amount, uint16 feeBps, address feeReceiver)
        external
        nonReentrant
    {
        _requireSender(paymentInfo.operator);
        _requireAmount(amount);
        _checkFee(paymentInfo, feeBps, feeReceiver);
        if (block.timestamp >= paymentInfo.authorizationExpiry) {
            revert AfterAuthorizationExpiry(uint48(block.timestamp), paymentInfo.authorizationExpiry);
        }
        bytes32 hash = getHash(paymentInfo);
        PaymentState storage state = paymentState[hash];
        if (state.capturableAmount < amount) {
            revert InsufficientAuthorization(hash, state.capturableAmount, amount);
        }
        state.capturableAmount -= uint120(amount);
        state.refundableAmount += uint120(amount);
        emit PaymentCaptured(hash, amount, feeBps, feeReceiver);
        _payOut(paymentInfo, amount, feeBps, feeReceiver);
    }

    // Returns everything still held to the payer and ends the authorization. Only the operator, at
    // any time, while something is held.
    function void(PaymentInfo calldata paymentInfo) external nonReentrant {
        _requireSender(paymentInfo.operator);
        bytes32 hash = getHash(paymentInfo);
        uint256 held = _release(hash);
        emit PaymentVoided(hash, held);
        _send(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, held);
    }

    // Returns everything still held to the payer. Only the payer, from the authorization expiry
    // on, while something is held: the payer's guarantee against an operator that never acts.
    function reclaim(PaymentInfo calldata paymentInfo) external nonReentrant {
        _requireSender(paymentInfo.payer);
        if (block.timestamp < paymentInfo.authorizationExpiry) {
            revert BeforeAuthorizationExpiry(uint48(block.timestamp), paymentInfo.authorizationExpiry);
        }
        bytes32 hash = getHash(paymentInfo);
        uint256 held = _release(hash);
        emit PaymentReclaimed(hash, held);
        _send(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, held);
    }

    // Sends amount back to the payer, the money coming through a refund collector (for example
    // from the operator). Only the operator, before the refund expiry, at most what was captured
    // and not yet refunded.
    function refund(
        PaymentInfo calldata paymentInfo,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData
    ) external nonReentrant {
        _requireSender(paymentInfo.operator);
        _requireAmount(amount);
        if (block.timestamp >= paymentInfo.refundExpiry) {
            revert AfterRefundExpiry(uint48(block.timestamp), paymentInfo.refundExpiry);
        }
        bytes32 hash = getHash(paymentInfo);
        uint120 refundable = paymentState[hash].refundableAmount;
        if (refundable < amount) revert RefundExceedsCapture(amount, refundable);
        paymentState[hash].refundableAmount = refundable - uint120(amount);
        emit PaymentRefunded(hash, amount, tokenCollector);
        _collect(paymentInfo, amount, tokenCollector, collectorData, TokenCollector.CollectorType.Refund);
        _send(paymentInfo.operator, paymentInfo.token, paymentInfo.payer, amount);
    }

    // The payment's identity: the EIP-712 struct hash of paymentInfo, bound to this chain and this
    // contract (keccak256 of chain id, contract address and struct hash, each one ABI word).
    function getHash(PaymentInfo calldata paymentInfo) public view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(PAYMENT_INFO_TYPEHASH, paymentInfo));
        return keccak256(abi.encode(block.chainid, address(this), structHash));
    }

    // The address of operator's token store, whether or not it is deployed yet.
    function getTokenStore(address operator) public view returns (address) {
        return Clones.predictDeterministicAddress(tokenStoreImplementation, bytes32(bytes20(operator)));
    }

    function _requireSender(address expected) private view {
        if (msg.sender != expected) revert InvalidSender(msg.sender, expected);
    }

    function _requireAmount(uint256 amount) private pure {
        if (amount == 0) revert ZeroAmount();
        if (amount > type(uint120).max) revert AmountOverflow(amount, type(uint120).max);
    }

    // The terms themselves must be sound for money to be taken under them.
    function _checkTerms(PaymentInfo calldata p, uint256 amount) private view {
        if (amount > p.maxAmount) revert ExceedsMaxAmount(amount, p.maxAmount);
        uint48 now48 = uint48(block.timestamp);
        if (now48 >= p.preApprovalExpiry) revert AfterPreApprovalExpiry(now48, p.preApprovalExpiry);
        if (p.preApprovalExpiry > p.authorizationExpiry || p.authorizationExpiry > p.refundExpiry) {
            revert InvalidExpiries(p.preApprovalExpiry, p.authorizationExpiry, p.refundExpiry);
        }
        if (p.maxFeeBps > ALL_BPS) revert FeeBpsOverflow(p.maxFeeBps);
        if (p.minFeeBps > p.maxFeeBps) revert InvalidFeeBpsRange(p.minFeeBps, p.maxFeeBps);
    }

    // The fee must be inside the payer's bounds and go where the payer agreed.
    function _checkFee(PaymentInfo calldata p, uint16 feeBps, address feeReceiver) private pure {
        if (feeBps < p.minFeeBps || feeBps > p.maxFeeBps) revert FeeBpsOutOfRange(feeBps, p.minFeeBps, p.maxFeeBps);
        if (feeBps > 0 && feeReceiver == address(0)) revert ZeroFeeReceiver();
        if (p.feeReceiver != address(0) && feeReceiver != p.feeReceiver) {
            revert InvalidFeeReceiver(feeReceiver, p.feeReceiver);
        }
    }

    // Records the payment's first and only collection.
    function _collectOnce(PaymentInfo calldata p, uint256 capturable, uint256 refundable)
        private
        returns (bytes32 hash)
    {
        hash = getHash(p);
        if (paymentState[hash].hasCollectedPayment) revert PaymentAlreadyCollected(hash);
        paymentState[hash] = PaymentState(true, uint120(capturable), uint120(refundable));
    }

    // Clears what is held for the payment and answers it; nothing held is an error.
    function _release(bytes32 hash) private returns (uint256 held) {
        held = paymentState[hash].capturableAmount;
        if (held == 0) revert ZeroAuthorization(hash);
        paymentState[hash].capturableAmount = 0;
    }

    // Has the collector move amount into the operator's token store, and checks that exactly
    // amount arrived: a collector is chosen by the operator and not trusted.
    function _collect(
        PaymentInfo calldata p,
        uint256 amount,
        address tokenCollector,
        bytes calldata collectorData,
        TokenCollector.CollectorType kind
    ) private {
        if (TokenCollector(tokenCollector).collectorType() != kind) revert InvalidCollectorForOperation();
        address store = getTokenStore(p.operator);
        uint256 before = IERC20(p.token).balanceOf(store);
        TokenCollector(tokenCollector).collectTokens(p, store, amount, collectorData);
        if (IERC20(p.token).balanceOf(store) != before + amount) revert TokenCollectionFailed();
    }

    // Splits amount between the fee receiver (amount * feeBps / 10000, rounded down) and the receiver.
    function _payOut(PaymentInfo calldata p, uint256 amount, uint16 feeBps, address feeReceiver) private {
        uint256 fee = amount * feeBps / ALL_BPS;
        if (fee > 0) _send(p.operator, p.token, feeReceiver, fee);
        if (amount > fee) _send(p.operator, p.token, p.receiver, amount - fee);
    }

    // Sends from the operator's token store, deploying the store on its first use.
    function _send(address operator, address token, address to, uint256 amount) private {
        address store = getTokenStore(operator);
        if (store.code.length == 0) {
            Clones.cloneDeterministic(tokenStoreImplementation, bytes32(bytes20(operator)));
            emit TokenStoreCreated(operator, store);
        }
        TokenStore(store).sendTokens(token, to, amount);
    }
}

// Holds one operator's escrowed money; only the escrow moves it.
contract TokenStore {
    address public immutable authCaptureEscrow;

    error OnlyAuthCaptureEscrow();

    constructor(address authCaptureEscrow_) {
        authCaptureEscrow = authCaptureEscrow_;
    }

    function sendTokens(address token, address recipient, uint256 amount) external returns (bool) {
        if (msg.sender != authCaptureEscrow) revert OnlyAuthCaptureEscrow();
        SafeERC20.safeTransfer(IERC20(token), recipient, amount);
        return true;
    }
}

// A token collector turns some authorization into tokens in a token store; only the escrow calls it.
// Payment collectors take from the payer, refund collectors provide the money of a refund.
abstract contract TokenCollector {
    enum CollectorType {
        Payment,
        Refund
    }

    AuthCaptureEscrow public immutable authCaptureEscrow;

    error OnlyAuthCaptureEscrow();

    constructor(address authCaptureEscrow_) {
        authCaptureEscrow = AuthCaptureEscrow(authCaptureEscrow_);
    }

    function collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) external {
        if (msg.sender != address(authCaptureEscrow)) revert OnlyAuthCaptureEscrow();
        _collectTokens(paymentInfo, tokenStore, amount, collectorData);
    }

    function collectorType() external view virtual returns (CollectorType);

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) internal virtual;

    // The payment's hash with the payer left out (zero): what a payer signs as a nonce before the
    // operator has put the payer's address into the terms.
    function _payerAgnosticHash(AuthCaptureEscrow.PaymentInfo calldata paymentInfo) internal view returns (bytes32) {
        AuthCaptureEscrow.PaymentInfo memory terms = paymentInfo;
        terms.payer = address(0);
        return authCaptureEscrow.getHash(terms);
    }
}
