// SPDX-License-Identifier: MIT
// The token collectors of the project's local escrow (AuthCaptureEscrow.sol), with the interface of
// the audited commerce-payments collectors of the same names.
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {AuthCaptureEscrow, TokenCollector} from "./AuthCaptureEscrow.sol";

// The signature form of EIP-3009's receiveWithAuthorization (as USDC has it).
interface IERC3009 {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes memory signature
    ) external;
}

// Collects a payment with the payer's EIP-3009 ReceiveWithAuthorization signature (collectorData):
// from the payer to this collector, value maxAmount, valid from 0 until the pre-approval expiry,
// its nonce the payment's hash with the payer zeroed. So one signature serves one payment only, and
// its terms (operator, receiver, fees, expiries, salt) are all under the signature. What is not
// authorized (maxAmount - amount) goes back to the payer at once.
// Signatures are plain 65-byte EOA signatures (the audited collector also unwraps ERC-6492 ones).
contract ERC3009PaymentCollector is TokenCollector {
    using SafeERC20 for IERC20;

    constructor(address authCaptureEscrow_) TokenCollector(authCaptureEscrow_) {}

    function collectorType() external pure override returns (CollectorType) {
        return CollectorType.Payment;
    }

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata collectorData
    ) internal override {
        IERC20 token = IERC20(paymentInfo.token);
        IERC3009(paymentInfo.token).receiveWithAuthorization(
            paymentInfo.payer,
            address(this),
            paymentInfo.maxAmount,
            0,
            paymentInfo.preApprovalExpiry,
            _payerAgnosticHash(paymentInfo),
            collectorData
        );
        if (paymentInfo.maxAmount > amount) token.safeTransfer(paymentInfo.payer, paymentInfo.maxAmount - amount);
        token.safeTransfer(tokenStore, amount);
    }
}

// Collects a refund's money from the operator, who has approved this collector for the token.
contract OperatorRefundCollector is TokenCollector {
    using SafeERC20 for IERC20;

    constructor(address authCaptureEscrow_) TokenCollector(authCaptureEscrow_) {}

    function collectorType() external pure override returns (CollectorType) {
        return CollectorType.Refund;
    }

    function _collectTokens(
        AuthCaptureEscrow.PaymentInfo calldata paymentInfo,
        address tokenStore,
        uint256 amount,
        bytes calldata
    ) internal override {
        IERC20(paymentInfo.token).safeTransferFrom(paymentInfo.operator, tokenStore, amount);
    }
}
