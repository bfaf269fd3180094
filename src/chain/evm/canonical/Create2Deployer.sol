// SPDX-License-Identifier: MIT
// cdp-sandbox's deterministic deployer, with the calling convention of the one at
// 0x4e59b44847b379578588920cA78FbF26c0B4956C: calldata is a 32-byte salt followed by the init code;
// the contract is created with CREATE2 (the value sent goes to it) and its 20-byte address is returned.
pragma solidity ^0.8.20;

contract Create2Deployer {
    fallback(bytes calldata input) external payable returns (bytes memory) {
        require(input.length >= 32, "Create2Deployer: salt missing");
        bytes32 salt = bytes32(input[:32]);
        bytes memory initCode = input[32:];
        address created;
        assembly {
            created := create2(callvalue(), add(initCode, 32), mload(initCode), salt)
        }
        if (created == address(0)) revert();
        return abi.encodePacked(created);
    }
}
